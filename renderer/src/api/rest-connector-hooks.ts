/** React Query hooks of the REST connector page; its logs are polled every second while it is open. */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from './api-context.tsx';
import {
  converterModules,
  createRestConnector,
  deleteRestConnector,
  restConfigSchema,
  restConfigTemplate,
  restConnector,
  restConnectors,
  restEndpoints,
  restOutgoingLog,
  restRequestLog,
  selfSignedCertificate,
  startRestConnector,
  stopRestConnector,
  testRestConnector,
  updateRestConnector,
  type RestConnectorDetails,
  type RestConnectorSummary,
  type SaveRestConnectorRequest,
  type TestRequest,
} from './rest-connector-api.ts';

export const LOG_POLL_MS = 1_000;

export const restConnectorKeys = {
  all: ['restConnectors'] as const,
  list: ['restConnectors', 'list'] as const,
  schema: ['restConnectors', 'schema'] as const,
  template: ['restConnectors', 'template'] as const,
  detailsAll: ['restConnectors', 'details'] as const,
  details: (id: string) => ['restConnectors', 'details', id] as const,
  endpoints: (id: string) => ['restConnectors', 'endpoints', id] as const,
  requests: (id: string) => ['restConnectors', 'requests', id] as const,
  outgoing: (id: string) => ['restConnectors', 'outgoing', id] as const,
  converters: ['restConnectors', 'converters'] as const,
};

/** The connectors with their state and counters, polled while shown. */
export function useRestConnectors(enabled = true, refreshMs = LOG_POLL_MS) {
  const client = useApi();
  return useQuery({
    queryKey: restConnectorKeys.list,
    queryFn: () => restConnectors(client),
    refetchInterval: refreshMs,
    enabled,
  });
}

/** The converters folder's modules; polled while shown, as files are dropped there from outside the app. */
export function useConverterModules() {
  const client = useApi();
  return useQuery({
    queryKey: restConnectorKeys.converters,
    queryFn: () => converterModules(client),
    refetchInterval: 3_000,
  });
}

export function useRestConnector(id: string | null) {
  const client = useApi();
  return useQuery({
    queryKey: restConnectorKeys.details(id ?? ''),
    queryFn: () => restConnector(client, id!),
    enabled: id !== null,
  });
}

export function useRestConfigSchema() {
  const client = useApi();
  return useQuery({
    queryKey: restConnectorKeys.schema,
    queryFn: () => restConfigSchema(client),
    staleTime: Infinity,
  });
}

export function useRestConfigTemplate(enabled = true) {
  const client = useApi();
  return useQuery({
    queryKey: restConnectorKeys.template,
    queryFn: () => restConfigTemplate(client),
    staleTime: Infinity,
    enabled,
  });
}

/** Endpoints change with the config and with start / stop (their URLs): refetched with the list. */
export function useRestEndpoints(id: string | null, version: string) {
  const client = useApi();
  return useQuery({
    queryKey: [...restConnectorKeys.endpoints(id ?? ''), version],
    queryFn: () => restEndpoints(client, id!),
    enabled: id !== null,
    placeholderData: keepPreviousData,
  });
}

export function useRestRequestLog(id: string | null, limit = 100) {
  const client = useApi();
  return useQuery({
    queryKey: [...restConnectorKeys.requests(id ?? ''), limit],
    queryFn: () => restRequestLog(client, id!, limit),
    enabled: id !== null,
    refetchInterval: LOG_POLL_MS,
    placeholderData: keepPreviousData,
  });
}

export function useRestOutgoingLog(id: string | null, limit = 100) {
  const client = useApi();
  return useQuery({
    queryKey: [...restConnectorKeys.outgoing(id ?? ''), limit],
    queryFn: () => restOutgoingLog(client, id!, limit),
    enabled: id !== null,
    refetchInterval: LOG_POLL_MS,
    placeholderData: keepPreviousData,
  });
}

function useInvalidateConnectors() {
  const qc = useQueryClient();
  return (details?: RestConnectorDetails) => {
    if (details) {
      qc.setQueryData(restConnectorKeys.details(details.id), details);
      // the list knows a new connector at once (its refetch follows)
      qc.setQueryData<RestConnectorSummary[]>(restConnectorKeys.list, (list) => {
        if (!list) return list;
        const { config: _config, validation: _validation, ...summary } = details;
        return list.some((c) => c.id === details.id)
          ? list.map((c) => (c.id === details.id ? summary : c))
          : [...list, summary];
      });
    }
    void qc.invalidateQueries({ queryKey: restConnectorKeys.list });
    void qc.invalidateQueries({ queryKey: ['restConnectors', 'endpoints'] });
  };
}

export function useCreateRestConnector() {
  const client = useApi();
  const done = useInvalidateConnectors();
  return useMutation({
    mutationFn: (body: SaveRestConnectorRequest) => createRestConnector(client, body),
    onSuccess: (details) => done(details),
  });
}

export function useUpdateRestConnector(id: string) {
  const client = useApi();
  const done = useInvalidateConnectors();
  return useMutation({
    mutationFn: (body: SaveRestConnectorRequest) => updateRestConnector(client, id, body),
    onSuccess: (details) => done(details),
  });
}

export function useDeleteRestConnector() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => deleteRestConnector(client, id),
    onSuccess: (_void, id) => {
      qc.removeQueries({ queryKey: restConnectorKeys.details(id) });
      void qc.invalidateQueries({ queryKey: restConnectorKeys.list });
    },
  });
}

/** Start or stop; the list (state, base URL) and the endpoints' URLs follow. */
export function useStartStopRestConnector() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, start }: { id: string; start: boolean }) =>
      start ? startRestConnector(client, id) : stopRestConnector(client, id),
    onSettled: (_summary, _err, { id }) => {
      void qc.invalidateQueries({ queryKey: restConnectorKeys.list });
      void qc.invalidateQueries({ queryKey: restConnectorKeys.details(id) });
      void qc.invalidateQueries({ queryKey: restConnectorKeys.endpoints(id) });
    },
  });
}

/** Saves only the autostart flag (the rest of the connector as saved). */
export function useSetAutostart() {
  const client = useApi();
  const done = useInvalidateConnectors();
  return useMutation({
    mutationFn: async ({ id, autostart }: { id: string; autostart: boolean }) => {
      const saved = await restConnector(client, id);
      return updateRestConnector(client, id, {
        name: saved.name,
        gatewayName: saved.gatewayName,
        config: saved.config,
        autostart,
        ...(saved.target.url !== undefined ? { target: saved.target } : {}),
      });
    },
    onSuccess: (details) => done(details),
  });
}

export function useSelfSignedCertificate(id: string) {
  const client = useApi();
  const done = useInvalidateConnectors();
  return useMutation({
    mutationFn: () => selfSignedCertificate(client, id),
    onSuccess: (details) => done(details),
  });
}

export function useTestRestConnector(id: string) {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: TestRequest) => testRestConnector(client, id, body),
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: restConnectorKeys.requests(id) });
      void qc.invalidateQueries({ queryKey: restConnectorKeys.list });
    },
  });
}

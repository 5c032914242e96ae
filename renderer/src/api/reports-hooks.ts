/** React Query hooks of the Reports page. */
import { keepPreviousData, useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useApi } from './api-context.tsx';
import {
  allAttributes,
  deleteTableView,
  deviceProfiles,
  loadSmartBuildingDemo,
  previewTableView,
  runTableView,
  saveTableView,
  smartBuildingDemoStatus,
  tableViews,
  telemetryKeys,
  tenantDevices,
  type PreviewRequest,
  type SaveTableViewRequest,
  type TableView,
  type ViewReportRequest,
} from './reports-api.ts';

export const reportKeys = {
  views: ['tableViews'] as const,
  demo: ['smartBuildingDemo'] as const,
  profiles: ['reports', 'deviceProfiles'] as const,
  devices: ['reports', 'devices'] as const,
  preview: (body: PreviewRequest) => ['reports', 'preview', JSON.stringify(body)] as const,
  attributes: (deviceId: string) => ['reports', 'attributes', deviceId] as const,
  telemetryKeys: (deviceId: string) => ['reports', 'telemetryKeys', deviceId] as const,
};

export function useTableViews() {
  const client = useApi();
  return useQuery({ queryKey: reportKeys.views, queryFn: () => allTableViews(client) });
}

async function allTableViews(client: ReturnType<typeof useApi>): Promise<TableView[]> {
  const all: TableView[] = [];
  for (let p = 0; ; p++) {
    const data = await tableViews(client, p, 100);
    all.push(...data.data);
    if (!data.hasNext) return all;
  }
}

export function useSaveTableView() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: SaveTableViewRequest) => saveTableView(client, body),
    onSuccess: () => qc.invalidateQueries({ queryKey: reportKeys.views }),
  });
}

export function useDeleteTableView() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => deleteTableView(client, id),
    onSuccess: () => qc.invalidateQueries({ queryKey: reportKeys.views }),
  });
}

/** The live preview of a definition (null: nothing to run yet); the last result stays while the next runs. */
export function usePreview(body: PreviewRequest | null) {
  const client = useApi();
  return useQuery({
    queryKey: body ? reportKeys.preview(body) : ['reports', 'preview', 'none'],
    // the result keeps the definition it is of (a placeholder result stays with its own)
    queryFn: async () => ({ ...(await previewTableView(client, body!)), config: body!.config }),
    enabled: body !== null,
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: 30_000,
  });
}

export function useRunTableView() {
  const client = useApi();
  return useMutation({
    mutationFn: ({ id, overrides }: { id: string; overrides: ViewReportRequest }) =>
      runTableView(client, id, overrides),
  });
}

/** The demo loader's progress, polled twice a second while it runs. */
export function useDemoStatus(enabled = true) {
  const client = useApi();
  return useQuery({
    queryKey: reportKeys.demo,
    queryFn: () => smartBuildingDemoStatus(client),
    enabled,
    refetchInterval: (q) => (q.state.data?.state === 'RUNNING' ? 500 : false),
  });
}

export function useLoadDemo() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => loadSmartBuildingDemo(client),
    onSuccess: (status) => qc.setQueryData(reportKeys.demo, status),
  });
}

export function useDeviceProfiles() {
  const client = useApi();
  return useQuery({
    queryKey: reportKeys.profiles,
    queryFn: async () => (await deviceProfiles(client)).data,
    staleTime: 60_000,
  });
}

export function useTenantDevices() {
  const client = useApi();
  return useQuery({
    queryKey: reportKeys.devices,
    queryFn: () => tenantDevices(client, { pageSize: 1000 }),
    staleTime: 60_000,
  });
}

export interface DeviceCatalog {
  telemetryKeys: string[];
  /** attribute key → values seen (as the report compares them: text) */
  attributes: Map<string, Set<string>>;
  loading: boolean;
}

const asText = (v: unknown) =>
  typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);

/** Telemetry keys and attribute keys and values of some devices (a sample of those a view covers). */
export function useDeviceCatalog(deviceIds: string[]): DeviceCatalog {
  const client = useApi();
  const keys = useQueries({
    queries: deviceIds.map((id) => ({
      queryKey: reportKeys.telemetryKeys(id),
      queryFn: () => telemetryKeys(client, id),
      staleTime: 60_000,
    })),
  });
  const attrs = useQueries({
    queries: deviceIds.map((id) => ({
      queryKey: reportKeys.attributes(id),
      queryFn: () => allAttributes(client, id),
      staleTime: 60_000,
    })),
  });
  const keysData = keys.map((k) => k.data);
  const attrsData = attrs.map((a) => a.data);
  const loading = keys.some((k) => k.isLoading) || attrs.some((a) => a.isLoading);
  return useMemo(() => {
    const telemetry = new Set<string>();
    for (const list of keysData) for (const k of list ?? []) telemetry.add(k);
    const attributes = new Map<string, Set<string>>();
    for (const list of attrsData)
      for (const a of list ?? []) {
        const values = attributes.get(a.key) ?? new Set<string>();
        if (a.value !== null && a.value !== undefined) values.add(asText(a.value));
        attributes.set(a.key, values);
      }
    return { telemetryKeys: [...telemetry].sort(), attributes, loading };
    // the arrays are new each render; their contents decide
  }, [JSON.stringify(keysData), JSON.stringify(attrsData), loading]);
}

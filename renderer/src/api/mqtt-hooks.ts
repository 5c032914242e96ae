/** React Query hooks of the MQTT page: sessions, recorded traffic, topics and the inspector's settings. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from './api-context.tsx';
import {
  clearMqttMessages,
  clientConnections,
  clientPublish,
  clientRpcRules,
  clientState,
  clientStopRepeat,
  clientSubscribe,
  clientUnsubscribe,
  closeClientConnection,
  openClientConnection,
  type ClientConnectRequest,
  type ClientPublishRequest,
  type RpcRule,
  disconnectMqttSession,
  inspectorStatus,
  mqttMessages,
  mqttSessions,
  mqttTopics,
  saveInspectorSettings,
  type InspectorSettings,
  type MessageFilter,
} from './mqtt-api.ts';

export const mqttKeys = {
  all: ['mqtt'] as const,
  sessions: ['mqtt', 'sessions'] as const,
  messages: (filter: MessageFilter, limit: number) => ['mqtt', 'messages', filter, limit] as const,
  topics: ['mqtt', 'topics'] as const,
  inspector: ['mqtt', 'inspector'] as const,
};

const POLL_MS = 2_000;

export function useMqttSessions() {
  const client = useApi();
  return useQuery({
    queryKey: mqttKeys.sessions,
    queryFn: () => mqttSessions(client),
    refetchInterval: POLL_MS,
  });
}

export function useDisconnectMqttSession() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (sessionId: string) => disconnectMqttSession(client, sessionId),
    onSettled: () => qc.invalidateQueries({ queryKey: mqttKeys.sessions }),
  });
}

export function useMqttMessages(filter: MessageFilter, limit = 200) {
  const client = useApi();
  return useQuery({
    queryKey: mqttKeys.messages(filter, limit),
    queryFn: () => mqttMessages(client, filter, limit),
  });
}

export function useMqttTopics(paused = false) {
  const client = useApi();
  return useQuery({
    queryKey: mqttKeys.topics,
    queryFn: () => mqttTopics(client),
    refetchInterval: paused ? false : POLL_MS,
  });
}

export function useInspectorStatus() {
  const client = useApi();
  return useQuery({
    queryKey: mqttKeys.inspector,
    queryFn: () => inspectorStatus(client),
    refetchInterval: 5_000,
  });
}

export function useSaveInspectorSettings() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (settings: InspectorSettings) => saveInspectorSettings(client, settings),
    onSuccess: (saved) => qc.setQueryData(mqttKeys.inspector, saved),
  });
}

export function useClearMqttMessages() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => clearMqttMessages(client),
    onSuccess: () => qc.invalidateQueries({ queryKey: mqttKeys.all }),
  });
}

export function useClientConnections() {
  const client = useApi();
  return useQuery({ queryKey: ['mqtt', 'clients'], queryFn: () => clientConnections(client) });
}

export function useClientState(id: string) {
  const client = useApi();
  return useQuery({
    queryKey: ['mqtt', 'clients', id],
    queryFn: () => clientState(client, id),
    refetchInterval: 1_000,
  });
}

export function useOpenClientConnection() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: ClientConnectRequest) => openClientConnection(client, body),
    onSettled: () => qc.invalidateQueries({ queryKey: ['mqtt', 'clients'] }),
  });
}

export function useCloseClientConnection() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => closeClientConnection(client, id),
    onSettled: () => qc.invalidateQueries({ queryKey: ['mqtt', 'clients'] }),
  });
}

/** The client's actions on one connection; each refreshes its state when done. */
export function useClientActions(id: string) {
  const client = useApi();
  const qc = useQueryClient();
  const refresh = () => qc.invalidateQueries({ queryKey: ['mqtt', 'clients', id] });
  const publish = useMutation({
    mutationFn: (b: ClientPublishRequest) => clientPublish(client, id, b),
    onSettled: refresh,
  });
  const stopRepeat = useMutation({
    mutationFn: (r: string) => clientStopRepeat(client, id, r),
    onSettled: refresh,
  });
  const subscribe = useMutation({
    mutationFn: (t: string) => clientSubscribe(client, id, t),
    onSettled: refresh,
  });
  const unsubscribe = useMutation({
    mutationFn: (t: string) => clientUnsubscribe(client, id, t),
    onSettled: refresh,
  });
  const rpcRules = useMutation({
    mutationFn: (r: RpcRule[]) => clientRpcRules(client, id, r),
    onSettled: refresh,
  });
  return { publish, stopRepeat, subscribe, unsubscribe, rpcRules };
}

/** The MQTT page's endpoints (/api/sandboard/mqtt/...), typed with the server's TypeBox shapes. */
import type {
  InspectedMessage,
  InspectorSettings,
  InspectorStatus,
  MessageFilter,
  MqttSessionInfo,
  TopicStats,
} from '../../../shared/schemas/mqtt-inspector.ts';
import type {
  ClientConnectRequest,
  ClientConnection,
  ClientPublishRequest,
  ClientSentMessage,
  ClientState,
  RpcRule,
} from '../../../shared/schemas/mqtt-client.ts';
import type { ApiClient } from './client.ts';

export type {
  ClientConnectRequest,
  ClientConnection,
  ClientPublishRequest,
  ClientSentMessage,
  ClientState,
  RpcRule,
  InspectedMessage,
  InspectorSettings,
  InspectorStatus,
  MessageFilter,
  MqttSessionInfo,
  TopicStats,
};

export interface MessagePage {
  messages: InspectedMessage[];
  lastSeq: number;
  hasMore: boolean;
}

export function mqttSessions(client: ApiClient): Promise<MqttSessionInfo[]> {
  return client.request('GET', '/api/sandboard/mqtt/sessions');
}

export function disconnectMqttSession(client: ApiClient, sessionId: string): Promise<void> {
  return client.request('DELETE', `/api/sandboard/mqtt/sessions/${encodeURIComponent(sessionId)}`);
}

export function mqttMessages(client: ApiClient, filter: MessageFilter, limit = 200): Promise<MessagePage> {
  return client.request('GET', '/api/sandboard/mqtt/messages', { query: { ...filter, limit } });
}

export function clearMqttMessages(client: ApiClient): Promise<void> {
  return client.request('DELETE', '/api/sandboard/mqtt/messages');
}

export function mqttTopics(client: ApiClient): Promise<TopicStats[]> {
  return client.request('GET', '/api/sandboard/mqtt/topics');
}

export function inspectorStatus(client: ApiClient): Promise<InspectorStatus> {
  return client.request('GET', '/api/sandboard/mqtt/inspector');
}

export function saveInspectorSettings(
  client: ApiClient,
  settings: InspectorSettings,
): Promise<InspectorStatus> {
  return client.request('POST', '/api/sandboard/mqtt/inspector', { body: settings });
}

const clientPath = (id: string) => `/api/sandboard/mqtt/clients/${encodeURIComponent(id)}`;

export function clientConnections(client: ApiClient): Promise<ClientConnection[]> {
  return client.request('GET', '/api/sandboard/mqtt/clients');
}

export function openClientConnection(
  client: ApiClient,
  body: ClientConnectRequest,
): Promise<ClientConnection> {
  return client.request('POST', '/api/sandboard/mqtt/clients', { body });
}

export function closeClientConnection(client: ApiClient, id: string): Promise<void> {
  return client.request('DELETE', clientPath(id));
}

export function clientState(client: ApiClient, id: string): Promise<ClientState> {
  return client.request('GET', clientPath(id));
}

export function clientPublish(
  client: ApiClient,
  id: string,
  body: ClientPublishRequest,
): Promise<ClientSentMessage | { repeatId: string }> {
  return client.request('POST', `${clientPath(id)}/publish`, { body });
}

export function clientStopRepeat(client: ApiClient, id: string, repeatId: string): Promise<void> {
  return client.request('DELETE', `${clientPath(id)}/repeats/${encodeURIComponent(repeatId)}`);
}

export function clientSubscribe(
  client: ApiClient,
  id: string,
  topic: string,
  qos = 1,
): Promise<{ granted: number }> {
  return client.request('POST', `${clientPath(id)}/subscribe`, { body: { topic, qos } });
}

export function clientUnsubscribe(client: ApiClient, id: string, topic: string): Promise<void> {
  return client.request('POST', `${clientPath(id)}/unsubscribe`, { body: { topic } });
}

export function clientRpcRules(client: ApiClient, id: string, rules: RpcRule[]): Promise<void> {
  return client.request('POST', `${clientPath(id)}/rpcRules`, { body: rules });
}

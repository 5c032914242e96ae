/** The MQTT page's endpoints (/api/sandboard/mqtt/...), typed with the server's TypeBox shapes. */
import type {
  InspectedMessage,
  InspectorSettings,
  InspectorStatus,
  MessageFilter,
  MqttSessionInfo,
  TopicStats,
} from '../../../shared/schemas/mqtt-inspector.ts';
import type { ApiClient } from './client.ts';

export type {
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

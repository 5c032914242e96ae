import { Type } from 'typebox';
import {
  InspectorSettings,
  InspectorStatus,
  MessageFilter,
  MessagePage,
  MqttSessionInfo,
  TopicStats,
} from '../../../shared/schemas/mqtt-inspector.ts';
import { visibilityOf, type MqttInspector } from '../../transport/mqtt/mqtt-inspector.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, type Api } from '../route-types.ts';

const tags = ['Sandboard MQTT'];
const EXPORT_MAX = 100_000;

/**
 * The MQTT page: sessions on the embedded broker, the traffic the inspector recorded, per-topic
 * statistics and the inspector's settings. A customer user sees only its own devices'.
 */
export function registerMqttRoutes(app: Api, { inspector }: { inspector: MqttInspector }): void {
  app.get(
    '/api/sandboard/mqtt/sessions',
    {
      schema: {
        tags,
        summary: 'Every client connected to the broker, with its device (or gateway and its devices)',
        response: { 200: Type.Array(MqttSessionInfo), ...authErrors },
      },
    },
    async (request) => inspector.sessions(visibilityOf(principalOf(request))),
  );
  app.delete(
    '/api/sandboard/mqtt/sessions/:id',
    {
      schema: {
        tags,
        summary: 'Disconnect a session (by session id or client id)',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 256 }) }),
        response: emptyOk,
      },
    },
    async (request) => {
      inspector.disconnect(visibilityOf(principalOf(request)), request.params.id);
      return '';
    },
  );
  const messageQuery = Type.Intersect([
    MessageFilter,
    Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })) }),
  ]);
  app.get(
    '/api/sandboard/mqtt/messages',
    {
      schema: {
        tags,
        summary: 'Recent messages (newest first) with the platform answer: reason code and rule engine ids',
        querystring: messageQuery,
        response: { 200: MessagePage, ...authErrors },
      },
    },
    async (request) => {
      const { limit, ...filter } = request.query;
      return inspector.messages(visibilityOf(principalOf(request)), filter, limit ?? 200);
    },
  );
  app.get(
    '/api/sandboard/mqtt/messages/export',
    {
      schema: {
        tags,
        summary: 'The messages matching the filter as JSON Lines, oldest first',
        querystring: MessageFilter,
        response: { 200: Type.String({ description: 'one message per line' }), ...authErrors },
      },
    },
    async (request, reply) => {
      const { messages } = inspector.messages(visibilityOf(principalOf(request)), request.query, EXPORT_MAX);
      reply.header('content-type', 'application/x-ndjson; charset=utf-8');
      reply.header('content-disposition', 'attachment; filename="mqtt-messages.jsonl"');
      return messages
        .reverse()
        .map((m) => `${JSON.stringify(m)}\n`)
        .join('');
    },
  );
  app.delete(
    '/api/sandboard/mqtt/messages',
    {
      schema: {
        tags,
        summary: 'Clear the recorded messages and topic counters (tenant only)',
        response: emptyOk,
      },
    },
    async (request) => {
      inspector.clear(visibilityOf(principalOf(request)));
      return '';
    },
  );
  app.get(
    '/api/sandboard/mqtt/topics',
    {
      schema: {
        tags,
        summary: 'Per device and topic: message count, last value and rate',
        response: { 200: Type.Array(TopicStats), ...authErrors },
      },
    },
    async (request) => inspector.topics(visibilityOf(principalOf(request))),
  );
  app.get(
    '/api/sandboard/mqtt/inspector',
    {
      schema: {
        tags,
        summary: "The inspector's settings and fill",
        response: { 200: InspectorStatus, ...authErrors },
      },
    },
    async (request) => {
      principalOf(request);
      return inspector.settings();
    },
  );
  app.post(
    '/api/sandboard/mqtt/inspector',
    {
      schema: {
        tags,
        summary: 'Turn recording on or off and set the ring buffer budget (tenant only)',
        body: InspectorSettings,
        response: { 200: InspectorStatus, ...authErrors },
      },
    },
    async (request) => inspector.configure(visibilityOf(principalOf(request)), request.body),
  );
}

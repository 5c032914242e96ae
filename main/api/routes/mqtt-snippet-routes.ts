import { MqttSnippetList } from '../../../shared/schemas/mqtt-snippets.ts';
import type { Services } from '../../platform/services.ts';
import { authErrors, type Api } from '../route-types.ts';

const tags = ['Sandboard MQTT client'];

/** The MQTT page's saved payload snippets, kept by the server (tenant administrator). */
export function registerMqttSnippetRoutes(app: Api, { services }: { services: Services }): void {
  app.get(
    '/api/sandboard/mqtt/snippets',
    {
      schema: {
        tags,
        summary: 'The saved payload snippets of the MQTT page, in order',
        response: { 200: MqttSnippetList, ...authErrors },
      },
    },
    async () => services.mqttSnippets.list(),
  );
  app.put(
    '/api/sandboard/mqtt/snippets',
    {
      schema: {
        tags,
        summary: 'Replace the saved payload snippets (at most 500, each field bounded); returns them',
        body: MqttSnippetList,
        response: { 200: MqttSnippetList, ...authErrors },
      },
    },
    async (request) => services.mqttSnippets.replace(request.body),
  );
}

import { Type } from 'typebox';
import { ApiKey, CreateApiKeyRequest, CreatedApiKey } from '../../../shared/schemas/auth.ts';
import { PageData, PageQuery, Uuid } from '../../../shared/schemas/common.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, type Api, type RouteDeps } from '../route-types.ts';

export function registerApiKeyRoutes(app: Api, { services }: RouteDeps): void {
  const tags = ['API keys'];
  const IdParams = Type.Object({ id: Uuid });
  app.post(
    '/api/apiKey',
    {
      schema: {
        tags,
        summary: 'Create an API key; the value is returned only in this answer',
        body: CreateApiKeyRequest,
        response: { 200: CreatedApiKey, ...authErrors },
      },
    },
    async (request) => services.apiKeys.create(request.body, principalOf(request)),
  );
  app.get(
    '/api/apiKeys/:userId',
    {
      schema: {
        tags,
        summary: "A user's API keys (values are never returned)",
        params: Type.Object({ userId: Uuid }),
        querystring: PageQuery(['createdTime', 'description', 'expirationTime']),
        response: { 200: PageData(ApiKey), ...authErrors },
      },
    },
    async (request) => services.apiKeys.page(request.params.userId, request.query, principalOf(request)),
  );
  app.get(
    '/api/apiKey/:id',
    { schema: { tags, summary: 'An API key', params: IdParams, response: { 200: ApiKey, ...authErrors } } },
    async (request) => services.apiKeys.get(request.params.id, principalOf(request)),
  );
  app.put(
    '/api/apiKey/:id/description',
    {
      schema: {
        tags,
        summary:
          "Change an API key's description (the body is the new description as a JSON string or plain text)",
        params: IdParams,
        body: Type.String({ minLength: 1, maxLength: 255 }),
        response: { 200: ApiKey, ...authErrors },
      },
    },
    async (request) =>
      services.apiKeys.update(request.params.id, { description: request.body }, principalOf(request)),
  );
  app.put(
    '/api/apiKey/:id/enabled/:enabled',
    {
      schema: {
        tags,
        summary: 'Enable or disable an API key',
        params: Type.Object({ id: Uuid, enabled: Type.Boolean() }),
        response: { 200: ApiKey, ...authErrors },
      },
    },
    async (request) =>
      services.apiKeys.update(request.params.id, { enabled: request.params.enabled }, principalOf(request)),
  );
  app.delete(
    '/api/apiKey/:id',
    { schema: { tags, summary: 'Revoke (delete) an API key', params: IdParams, response: emptyOk } },
    async (request, reply) => {
      await services.apiKeys.delete(request.params.id, principalOf(request));
      return reply.code(200).send(undefined);
    },
  );
}

import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';

export const SECURITY_SCHEMES = {
  HttpLoginForm: {
    type: 'apiKey' as const,
    in: 'header' as const,
    name: 'X-Authorization',
    description:
      'JWT from the login form: enter username and password in the Authorize dialog (it calls POST /api/auth/login), or paste `Bearer <token>`.',
  },
  ApiKeyForm: {
    type: 'apiKey' as const,
    in: 'header' as const,
    name: 'X-Authorization',
    description: 'API key: `ApiKey <value>` (the prefix is added for you in the Authorize dialog).',
  },
  EdgeBasic: {
    type: 'http' as const,
    scheme: 'basic',
    description: "For edges pulling their queue: the edge's routing key and secret.",
  },
};

/** The OpenAPI 3.1 document, generated from every route's schemas. */
export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sandboard REST API',
        version,
        description:
          // Markdown: in code spans, Swagger UI shows <JWT> and <key> instead of dropping them as HTML tags
          'ThingsBoard-compatible REST API of Sandboard. Authenticate with `X-Authorization: Bearer <JWT>` (POST /api/auth/login) or `X-Authorization: ApiKey <key>`. Errors: `{status, message, errorCode, timestamp}`.',
      },
      components: { securitySchemes: SECURITY_SCHEMES },
      security: [{ HttpLoginForm: [] }, { ApiKeyForm: [] }],
    },
  });
}

import type { FastifyInstance } from 'fastify';
import type { Principal } from '../platform/auth/principal.ts';
import type { AuthService } from '../platform/auth/auth-service.ts';
import { unauthorized } from '../platform/errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** true: no credentials needed */
    public?: boolean;
  }
}

/** Every route needs a JWT or an API key from the headers unless its config says public. Cookies are never read. */
export function installAuthentication(app: FastifyInstance, auth: AuthService): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config?.public || !request.routeOptions.url) return;
    const header = request.headers['x-authorization'] ?? request.headers.authorization;
    request.principal = auth.authenticate(Array.isArray(header) ? header[0] : header);
  });
}

export function principalOf(request: { principal: Principal | null }): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}

import type { FastifyInstance } from 'fastify';
import type { Principal } from '../platform/auth/principal.ts';
import type { AuthService } from '../platform/auth/auth-service.ts';
import { forbidden, unauthorized } from '../platform/errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** true: no credentials needed */
    public?: boolean;
  }
}

/** What a public dashboard's user may send besides GET: the queries its widgets read with, and its logout. */
const PUBLIC_READS = new Set([
  'POST /api/entitiesQuery/find',
  'POST /api/entitiesQuery/count',
  'POST /api/entitiesQuery/find/keys',
  'POST /api/alarmsQuery/find',
  'POST /api/alarmsQuery/count',
  'POST /api/auth/logout',
]);

/**
 * Every route needs a JWT or an API key from the headers unless its config says public. Cookies are never read.
 * The public customer's user (a public dashboard's viewer) only reads: any write gets 403.
 */
export function installAuthentication(app: FastifyInstance, auth: AuthService): void {
  app.decorateRequest('principal', null);
  // Callback hooks, here and in the other hooks every request runs: no promise per request.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.routeOptions.config?.public || !request.routeOptions.url) return done();
    const header = request.headers['x-authorization'] ?? request.headers.authorization;
    let principal: Principal;
    try {
      principal = auth.authenticate(Array.isArray(header) ? header[0] : header);
    } catch (err) {
      return done(err as Error);
    }
    if (
      principal.isPublic &&
      request.method !== 'GET' &&
      request.method !== 'HEAD' &&
      !PUBLIC_READS.has(`${request.method} ${request.routeOptions.url}`)
    )
      return done(forbidden("You don't have permission to perform this operation!"));
    request.principal = principal;
    done();
  });
}

export function principalOf(request: { principal: Principal | null }): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}

import type { FastifyInstance } from 'fastify';
import { forbidden } from '../platform/errors.ts';
import { CUSTOMER_SCOPE, type CustomerAccess } from './customer-scope-table.ts';

const key = (method: string, url: string) => `${method === 'HEAD' ? 'GET' : method} ${url}`;
const ACCESS = new Map<string, CustomerAccess>(
  CUSTOMER_SCOPE.map(([m, path, access]) => [key(m, path), access]),
);

/** What a customer user may do with a route: its row in CUSTOMER_SCOPE; an /api route without one is tenant-only. */
export function customerAccessOf(method: string, url: string): CustomerAccess {
  return ACCESS.get(key(method, url)) ?? 'tenant';
}

/**
 * Tenant-only operations answer 403 to customer users (JWT or API key) before their parameters or body
 * are read, as ThingsBoard's @PreAuthorize does. Runs after authentication.
 */
export function installCustomerScope(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const url = request.routeOptions.url;
    if (request.principal?.authority !== 'CUSTOMER_USER' || !url?.startsWith('/api/')) return done();
    done(customerAccessOf(request.method, url) === 'tenant' ? forbidden() : undefined);
  });
}

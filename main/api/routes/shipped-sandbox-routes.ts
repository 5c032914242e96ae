import { Type } from 'typebox';
import { LoadShippedSandboxResult, ShippedSandboxList } from '../../../shared/schemas/shipped-sandbox.ts';
import { requireTenantAdmin } from '../../platform/auth/principal.ts';
import { ShippedSandboxes, type ShippedSandboxDeps } from '../shipped-sandboxes.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, type Api } from '../route-types.ts';

/** The "Start here" page's catalogue of shipped sandboxes, and loading one in a click. */
export function registerShippedSandboxRoutes(app: Api, deps: ShippedSandboxDeps): ShippedSandboxes {
  const sandboxes = new ShippedSandboxes(deps);
  app.get(
    '/api/sandboard/sandboxes/shipped',
    {
      schema: {
        tags: ['Sandboxes'],
        summary:
          'The shipped sandboxes (smart building, trackers, factory line, ThingsBoard 101): what each teaches, its guided tour, and whether it is loaded (with the progress of a load under way)',
        response: { 200: ShippedSandboxList, ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return sandboxes.list();
    },
  );
  app.post(
    '/api/sandboard/sandboxes/shipped/:id/load',
    {
      schema: {
        tags: ['Sandboxes'],
        summary:
          'Loads a shipped sandbox: its profiles and alarm rules, assets, devices, dashboard, rule chain, REST connector, edge and attributes, and starts its simulation. Idempotent: what exists (by name) is kept, and the answer lists what was created and what was there',
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        response: { 200: LoadShippedSandboxResult, ...authErrors },
      },
    },
    async (request) => sandboxes.load(request.params.id, principalOf(request)),
  );
  return sandboxes;
}

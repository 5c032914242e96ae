import { NULL_UUID } from '../../shared/schemas/common.ts';
import type { Principal } from '../platform/auth/principal.ts';
import type { Services } from '../platform/services.ts';

/** Who rule nodes act as when they change entities: the tenant, as ThingsBoard's rule engine does. */
export function ruleEnginePrincipal(services: Services): Principal {
  return {
    userId: NULL_UUID,
    email: 'rule-engine',
    authority: 'TENANT_ADMIN',
    tenantId: services.ctx.tenantId,
    customerId: null,
    sessionId: null,
    via: 'JWT',
  };
}

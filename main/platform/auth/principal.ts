import type { Authority } from '../../../shared/schemas/auth.ts';
import { forbidden } from '../errors.ts';

/** Who a request acts as, from a JWT or an API key. */
export interface Principal {
  userId: string;
  email: string;
  authority: Authority;
  tenantId: string;
  customerId: string | null;
  sessionId: string | null;
  via: 'JWT' | 'API_KEY';
  /** the public customer's virtual user (ThingsBoard's PUBLIC_ID principal): it may only read */
  isPublic?: true;
}

export function requireTenantAdmin(p: Principal): void {
  if (p.authority !== 'TENANT_ADMIN') throw forbidden();
}

/** A customer user may touch only entities of its own customer. */
export function requireCustomerAccess(p: Principal, ownerCustomerId: string | null): void {
  if (p.authority === 'TENANT_ADMIN') return;
  if (!p.customerId || ownerCustomerId !== p.customerId) throw forbidden();
}

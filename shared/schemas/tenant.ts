import { Type, type Static } from 'typebox';
import { EntityId } from './common.ts';

const Text = Type.Union([Type.String(), Type.Null()]);

/** ThingsBoard's Tenant. */
export const Tenant = Type.Object({
  id: EntityId('TENANT'),
  createdTime: Type.Integer(),
  title: Type.String(),
  name: Type.String(),
  region: Type.String(),
  tenantProfileId: EntityId('TENANT_PROFILE'),
  country: Text,
  state: Text,
  city: Text,
  address: Text,
  address2: Text,
  zip: Text,
  phone: Text,
  email: Text,
  additionalInfo: Type.Record(Type.String(), Type.Unknown()),
});
export type Tenant = Static<typeof Tenant>;

export const TenantInfo = Type.Object({ ...Tenant.properties, tenantProfileName: Type.String() });
export type TenantInfo = Static<typeof TenantInfo>;

/** Assets and asset profiles, in ThingsBoard's shapes (Asset, AssetInfo, AssetProfile, AssetProfileInfo). */
import { Type, type Static } from 'typebox';
import { AnyEntityId, EntityId, Nullable } from './common.ts';

const Info = Type.Record(Type.String(), Type.Unknown());
const RefInput = (entityType: string) =>
  Type.Object({ entityType: Type.Optional(Type.Literal(entityType)), id: Type.String({ format: 'uuid' }) });

export const Asset = Type.Object({
  id: EntityId('ASSET'),
  createdTime: Type.Integer(),
  tenantId: EntityId('TENANT'),
  customerId: EntityId('CUSTOMER'),
  name: Type.String(),
  type: Type.String({ description: 'Asset profile name' }),
  label: Nullable(Type.String()),
  assetProfileId: EntityId('ASSET_PROFILE'),
  additionalInfo: Info,
});
export type Asset = Static<typeof Asset>;

export const AssetInfo = Type.Object({
  ...Asset.properties,
  customerTitle: Nullable(Type.String()),
  customerIsPublic: Type.Boolean(),
  assetProfileName: Type.String(),
});
export type AssetInfo = Static<typeof AssetInfo>;

export const SaveAssetRequest = Type.Object({
  id: Type.Optional(RefInput('ASSET')),
  name: Type.String({ minLength: 1, maxLength: 255 }),
  type: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Asset profile name' })),
  label: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  assetProfileId: Type.Optional(Nullable(RefInput('ASSET_PROFILE'))),
  customerId: Type.Optional(Nullable(RefInput('CUSTOMER'))),
  additionalInfo: Type.Optional(Nullable(Info)),
});
export type SaveAssetRequest = Static<typeof SaveAssetRequest>;

export const AssetProfile = Type.Object({
  id: EntityId('ASSET_PROFILE'),
  createdTime: Type.Integer(),
  tenantId: EntityId('TENANT'),
  name: Type.String(),
  description: Nullable(Type.String()),
  image: Nullable(Type.String()),
  default: Type.Boolean(),
  defaultRuleChainId: Nullable(EntityId('RULE_CHAIN')),
  defaultDashboardId: Nullable(EntityId('DASHBOARD')),
  defaultQueueName: Nullable(Type.String()),
  defaultEdgeRuleChainId: Nullable(EntityId('RULE_CHAIN')),
});
export type AssetProfile = Static<typeof AssetProfile>;

export const SaveAssetProfileRequest = Type.Object({
  id: Type.Optional(RefInput('ASSET_PROFILE')),
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 1024 }))),
  image: Type.Optional(Nullable(Type.String({ maxLength: 262_144 }))),
  default: Type.Optional(Type.Boolean()),
  defaultRuleChainId: Type.Optional(Nullable(RefInput('RULE_CHAIN'))),
  defaultDashboardId: Type.Optional(Nullable(RefInput('DASHBOARD'))),
  defaultQueueName: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  defaultEdgeRuleChainId: Type.Optional(Nullable(RefInput('RULE_CHAIN'))),
});
export type SaveAssetProfileRequest = Static<typeof SaveAssetProfileRequest>;

export const AssetProfileInfo = Type.Object({
  id: EntityId('ASSET_PROFILE'),
  tenantId: EntityId('TENANT'),
  name: Type.String(),
  image: Nullable(Type.String()),
  defaultDashboardId: Nullable(EntityId('DASHBOARD')),
});
export type AssetProfileInfo = Static<typeof AssetProfileInfo>;

/** ThingsBoard's EntityInfo: an id and a name. */
export const EntityInfo = Type.Object({ id: AnyEntityId, name: Type.String() });
export type EntityInfo = Static<typeof EntityInfo>;

/** ThingsBoard's EntitySubtype: a type in use (asset types, alarm types). */
export const EntitySubtype = Type.Object({
  tenantId: EntityId('TENANT'),
  entityType: Type.String(),
  type: Type.String(),
});
export type EntitySubtype = Static<typeof EntitySubtype>;

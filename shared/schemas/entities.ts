import { Type, type Static } from 'typebox';
import { EntityId } from './common.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Info = Type.Record(Type.String(), Type.Unknown());
const RefInput = (entityType: string) =>
  Type.Object({ entityType: Type.Optional(Type.Literal(entityType)), id: Type.String() });

export const Customer = Type.Object({
  id: EntityId('CUSTOMER'),
  createdTime: Type.Integer(),
  tenantId: EntityId('TENANT'),
  title: Type.String(),
  name: Type.String(),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  country: Nullable(Type.String()),
  city: Nullable(Type.String()),
  address: Nullable(Type.String()),
  additionalInfo: Info,
});
export type Customer = Static<typeof Customer>;

export const SaveCustomerRequest = Type.Object({
  id: Type.Optional(RefInput('CUSTOMER')),
  title: Type.String({ minLength: 1, maxLength: 255 }),
  email: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  phone: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  country: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  city: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  address: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  additionalInfo: Type.Optional(Nullable(Info)),
});
export type SaveCustomerRequest = Static<typeof SaveCustomerRequest>;

export const ProvisionType = Type.Union([
  Type.Literal('DISABLED'),
  Type.Literal('ALLOW_CREATE_NEW_DEVICES'),
  Type.Literal('CHECK_PRE_PROVISIONED_DEVICES'),
]);
export type ProvisionType = Static<typeof ProvisionType>;

export const DeviceProfile = Type.Object({
  id: EntityId('DEVICE_PROFILE'),
  createdTime: Type.Integer(),
  tenantId: EntityId('TENANT'),
  name: Type.String(),
  description: Nullable(Type.String()),
  type: Type.Literal('DEFAULT'),
  transportType: Type.String(),
  provisionType: Type.String({
    description: 'DISABLED, ALLOW_CREATE_NEW_DEVICES or CHECK_PRE_PROVISIONED_DEVICES',
  }),
  provisionDeviceKey: Nullable(Type.String()),
  default: Type.Boolean(),
  defaultRuleChainId: Nullable(EntityId('RULE_CHAIN')),
  defaultQueueName: Type.Optional(Nullable(Type.String())),
  profileData: Info,
  firmwareId: Type.Optional(Nullable(EntityId('OTA_PACKAGE'))),
  softwareId: Type.Optional(Nullable(EntityId('OTA_PACKAGE'))),
});
export type DeviceProfile = Static<typeof DeviceProfile>;

export const SaveDeviceProfileRequest = Type.Object({
  id: Type.Optional(RefInput('DEVICE_PROFILE')),
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 1024 }))),
  type: Type.Optional(Type.Literal('DEFAULT')),
  transportType: Type.Optional(Type.String({ maxLength: 32 })),
  provisionType: Type.Optional(ProvisionType),
  provisionDeviceKey: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  default: Type.Optional(Type.Boolean()),
  defaultRuleChainId: Type.Optional(Nullable(RefInput('RULE_CHAIN'))),
  defaultQueueName: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  profileData: Type.Optional(Nullable(Info)),
  firmwareId: Type.Optional(Nullable(RefInput('OTA_PACKAGE'))),
  softwareId: Type.Optional(Nullable(RefInput('OTA_PACKAGE'))),
});
export type SaveDeviceProfileRequest = Static<typeof SaveDeviceProfileRequest>;

export const Device = Type.Object({
  id: EntityId('DEVICE'),
  createdTime: Type.Integer(),
  tenantId: EntityId('TENANT'),
  customerId: EntityId('CUSTOMER'),
  name: Type.String(),
  type: Type.String({ description: 'Device profile name' }),
  label: Nullable(Type.String()),
  deviceProfileId: EntityId('DEVICE_PROFILE'),
  firmwareId: Type.Optional(Nullable(EntityId('OTA_PACKAGE'))),
  softwareId: Type.Optional(Nullable(EntityId('OTA_PACKAGE'))),
  additionalInfo: Info,
});
export type Device = Static<typeof Device>;

export const SaveDeviceRequest = Type.Object({
  id: Type.Optional(RefInput('DEVICE')),
  name: Type.String({ minLength: 1, maxLength: 255 }),
  type: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Device profile name' })),
  label: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  deviceProfileId: Type.Optional(Nullable(RefInput('DEVICE_PROFILE'))),
  customerId: Type.Optional(Nullable(RefInput('CUSTOMER'))),
  additionalInfo: Type.Optional(Nullable(Info)),
  firmwareId: Type.Optional(Nullable(RefInput('OTA_PACKAGE'))),
  softwareId: Type.Optional(Nullable(RefInput('OTA_PACKAGE'))),
});
export type SaveDeviceRequest = Static<typeof SaveDeviceRequest>;

export const CredentialsType = Type.Union([Type.Literal('ACCESS_TOKEN'), Type.Literal('MQTT_BASIC')]);
export type CredentialsType = Static<typeof CredentialsType>;

export const DeviceCredentials = Type.Object({
  id: Type.Object({ id: Type.String() }),
  createdTime: Type.Integer(),
  deviceId: EntityId('DEVICE'),
  credentialsType: CredentialsType,
  credentialsId: Type.String({
    description: 'ACCESS_TOKEN: the access token; MQTT_BASIC: derived from the client id and user name',
  }),
  credentialsValue: Nullable(
    Type.String({
      description: 'MQTT_BASIC: {"clientId":"..","userName":"..","password":".."} as a JSON string',
    }),
  ),
});
export type DeviceCredentials = Static<typeof DeviceCredentials>;

export const SaveDeviceCredentialsRequest = Type.Object({
  id: Type.Optional(Type.Object({ id: Type.String() })),
  deviceId: Type.Optional(RefInput('DEVICE')),
  credentialsType: Type.Optional(CredentialsType),
  credentialsId: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  credentialsValue: Type.Optional(Nullable(Type.String({ maxLength: 1024 }))),
});
export type SaveDeviceCredentialsRequest = Static<typeof SaveDeviceCredentialsRequest>;

/** ThingsBoard's DeviceInfo: a device with its customer's title, its profile's name and whether it is active. */
export const DeviceInfo = Type.Object({
  ...Device.properties,
  customerTitle: Nullable(Type.String()),
  customerIsPublic: Type.Boolean(),
  deviceProfileName: Type.String(),
  active: Type.Boolean({ description: "The device's 'active' server attribute (connected and not idle)" }),
});
export type DeviceInfo = Static<typeof DeviceInfo>;

export const EntitySubtype = Type.Object({
  tenantId: EntityId('TENANT'),
  entityType: Type.String(),
  type: Type.String(),
});
export type EntitySubtype = Static<typeof EntitySubtype>;

export const EntityInfo = Type.Object({
  id: Type.Object({ entityType: Type.String(), id: Type.String() }),
  name: Type.String(),
});
export type EntityInfo = Static<typeof EntityInfo>;

export const DeviceProfileInfo = Type.Object({
  id: EntityId('DEVICE_PROFILE'),
  tenantId: EntityId('TENANT'),
  name: Type.String(),
  image: Nullable(Type.String()),
  defaultDashboardId: Nullable(EntityId('DASHBOARD')),
  type: Type.Literal('DEFAULT'),
  transportType: Type.String(),
});
export type DeviceProfileInfo = Static<typeof DeviceProfileInfo>;

export const RELATION_SEARCH_MAX_LEVEL = 100;

/** ThingsBoard's DeviceSearchQuery: devices related to a root entity (POST /api/devices). */
export const DeviceSearchQuery = Type.Object({
  parameters: Type.Object({
    rootId: Type.String({ format: 'uuid' }),
    rootType: Type.String({ minLength: 1, maxLength: 64 }),
    direction: Type.Union([Type.Literal('FROM'), Type.Literal('TO')]),
    relationTypeGroup: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
    maxLevel: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: RELATION_SEARCH_MAX_LEVEL,
        description: 'Relation levels to follow; 0 means all (at most 100)',
      }),
    ),
    fetchLastLevelOnly: Type.Optional(Type.Boolean()),
  }),
  relationType: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  deviceTypes: Type.Array(Type.String({ maxLength: 255 }), { maxItems: 1000 }),
});
export type DeviceSearchQuery = Static<typeof DeviceSearchQuery>;

export const SaveDeviceWithCredentialsRequest = Type.Object({
  device: SaveDeviceRequest,
  credentials: SaveDeviceCredentialsRequest,
});
export type SaveDeviceWithCredentialsRequest = Static<typeof SaveDeviceWithCredentialsRequest>;

export const BULK_IMPORT_MAX_ROWS = 10_000;

/** ThingsBoard's BulkImportRequest: a CSV file and what each column is. */
export const BulkImportRequest = Type.Object({
  file: Type.String({ description: 'The CSV text' }),
  mapping: Type.Object({
    columns: Type.Array(
      Type.Object({
        type: Type.String({
          minLength: 1,
          maxLength: 64,
          description: 'NAME, TYPE, LABEL, ACCESS_TOKEN, ...',
        }),
        key: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
      }),
      { minItems: 1, maxItems: 1000 },
    ),
    delimiter: Type.Optional(Type.String({ minLength: 1, maxLength: 1 })),
    update: Type.Optional(Type.Boolean()),
    header: Type.Optional(Type.Boolean()),
  }),
});
export type BulkImportRequest = Static<typeof BulkImportRequest>;

export const BulkImportResult = Type.Object({
  created: Type.Integer(),
  updated: Type.Integer(),
  errors: Type.Integer(),
  errorsList: Type.Array(Type.String()),
});
export type BulkImportResult = Static<typeof BulkImportResult>;

import { Type, type Static } from 'typebox';
import { EntityId } from './common.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

/** ThingsBoard's OtaPackageType. */
export const OTA_PACKAGE_TYPES = ['FIRMWARE', 'SOFTWARE'] as const;
export type OtaPackageType = (typeof OTA_PACKAGE_TYPES)[number];

/** ThingsBoard's ChecksumAlgorithm. */
export const CHECKSUM_ALGORITHMS = [
  'MD5',
  'SHA256',
  'SHA384',
  'SHA512',
  'CRC32',
  'MURMUR3_32',
  'MURMUR3_128',
] as const;
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];

/** ThingsBoard's OtaPackageUpdateStatus, in the order an update goes through them. */
export const OTA_UPDATE_STATES = [
  'QUEUED',
  'INITIATED',
  'DOWNLOADING',
  'DOWNLOADED',
  'VERIFIED',
  'UPDATING',
  'UPDATED',
  'FAILED',
] as const;
export type OtaUpdateState = (typeof OTA_UPDATE_STATES)[number];

const PackageType = Type.Union([Type.Literal('FIRMWARE'), Type.Literal('SOFTWARE')]);
const Algorithm = Type.Union([
  Type.Literal('MD5'),
  Type.Literal('SHA256'),
  Type.Literal('SHA384'),
  Type.Literal('SHA512'),
  Type.Literal('CRC32'),
  Type.Literal('MURMUR3_32'),
  Type.Literal('MURMUR3_128'),
]);

export const OtaPackageInfo = Type.Object({
  id: EntityId('OTA_PACKAGE'),
  createdTime: Type.Integer(),
  tenantId: EntityId('TENANT'),
  deviceProfileId: Nullable(EntityId('DEVICE_PROFILE')),
  type: PackageType,
  title: Type.String(),
  version: Type.String(),
  tag: Nullable(Type.String()),
  url: Nullable(Type.String()),
  hasData: Type.Boolean(),
  fileName: Nullable(Type.String()),
  contentType: Nullable(Type.String()),
  checksumAlgorithm: Nullable(Algorithm),
  checksum: Nullable(Type.String()),
  dataSize: Nullable(Type.Integer()),
  additionalInfo: Type.Record(Type.String(), Type.Unknown()),
});
export type OtaPackageInfo = Static<typeof OtaPackageInfo>;

/** OtaPackage: the info with its data (base64, as Jackson writes a ByteBuffer). */
export const OtaPackage = Type.Intersect([OtaPackageInfo, Type.Object({ data: Nullable(Type.String()) })]);
export type OtaPackage = Static<typeof OtaPackage>;

/** ThingsBoard's SaveOtaPackageInfoRequest: the info, and whether the package is a URL. */
export const SaveOtaPackageInfoRequest = Type.Object({
  id: Type.Optional(
    Type.Object({ entityType: Type.Optional(Type.Literal('OTA_PACKAGE')), id: Type.String() }),
  ),
  deviceProfileId: Type.Optional(
    Nullable(Type.Object({ entityType: Type.Optional(Type.Literal('DEVICE_PROFILE')), id: Type.String() })),
  ),
  type: PackageType,
  title: Type.String({ minLength: 1, maxLength: 255 }),
  version: Type.String({ minLength: 1, maxLength: 255 }),
  tag: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  url: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
  usesUrl: Type.Optional(Type.Boolean()),
  checksumAlgorithm: Type.Optional(Nullable(Algorithm)),
  checksum: Type.Optional(Nullable(Type.String({ maxLength: 1020 }))),
  additionalInfo: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
});
export type SaveOtaPackageInfoRequest = Static<typeof SaveOtaPackageInfoRequest>;

/** A rollout: how many devices that get a package are in each update state, and why the failed ones failed. */
export const OtaRollout = Type.Object({
  otaPackageId: Type.String(),
  type: PackageType,
  title: Type.String(),
  version: Type.String(),
  devices: Type.Integer({ description: 'devices the package is assigned to (directly or by their profile)' }),
  states: Type.Record(Type.String(), Type.Integer(), { description: 'devices per fw_state (sw_state)' }),
  failures: Type.Record(Type.String(), Type.Integer(), { description: 'failed devices per fw_error' }),
});
export type OtaRollout = Static<typeof OtaRollout>;

import { Type, type Static } from 'typebox';
import { EntityId } from './common.ts';

export const RPC_STATUSES = [
  'QUEUED',
  'SENT',
  'DELIVERED',
  'SUCCESSFUL',
  'TIMEOUT',
  'EXPIRED',
  'FAILED',
] as const;
export const RpcStatus = Type.Union([
  Type.Literal('QUEUED'),
  Type.Literal('SENT'),
  Type.Literal('DELIVERED'),
  Type.Literal('SUCCESSFUL'),
  Type.Literal('TIMEOUT'),
  Type.Literal('EXPIRED'),
  Type.Literal('FAILED'),
]);
export type RpcStatus = (typeof RPC_STATUSES)[number];

/** How far ahead a request may expire (below setTimeout's 24.8-day limit). */
export const RPC_MAX_EXPIRATION_MS = 24 * 86_400_000;

/** ThingsBoard's server-side RPC body (POST /api/rpc/oneway|twoway/{deviceId}, /api/plugins/rpc/...). */
export const RpcRequestBody = Type.Object({
  method: Type.String({ minLength: 1, maxLength: 255 }),
  params: Type.Optional(Type.Unknown()),
  timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 600_000, description: 'ms, default 10000' })),
  expirationTime: Type.Optional(
    Type.Integer({ minimum: 0, description: 'epoch ms; overrides timeout (at most 24 days ahead)' }),
  ),
  persistent: Type.Optional(
    Type.Boolean({
      description:
        'true: stored, answered at once with {"rpcId"}, delivered when the device (re)connects, survives restarts',
    }),
  ),
  retries: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 100, description: 'persistent: re-sends after a missing PUBACK' }),
  ),
  additionalInfo: Type.Optional(Type.Unknown({ description: 'persistent: kept with the request' })),
  requestUUID: Type.Optional(
    Type.String({ format: 'uuid', description: 'the persistent request id to use' }),
  ),
});
export type RpcRequestBody = Static<typeof RpcRequestBody>;

/** ThingsBoard's Rpc entity: a persistent server-side RPC and its state. */
export const PersistentRpc = Type.Object({
  id: EntityId('RPC'),
  createdTime: Type.Integer(),
  tenantId: EntityId('TENANT'),
  deviceId: EntityId('DEVICE'),
  expirationTime: Type.Integer(),
  request: Type.Object({
    id: Type.String(),
    tenantId: EntityId('TENANT'),
    deviceId: EntityId('DEVICE'),
    oneway: Type.Boolean(),
    expirationTime: Type.Integer(),
    body: Type.Object({
      method: Type.String(),
      params: Type.String({ description: 'the params as JSON text' }),
    }),
    persisted: Type.Boolean(),
    retries: Type.Union([Type.Integer(), Type.Null()]),
  }),
  response: Type.Unknown(),
  status: RpcStatus,
  additionalInfo: Type.Unknown(),
});
export type PersistentRpc = Static<typeof PersistentRpc>;

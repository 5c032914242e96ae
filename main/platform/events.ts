import { EventEmitter } from 'node:events';
import type { Alarm, AlarmChangeKind, AlarmInfo } from '../../shared/schemas/alarms.ts';
import type { EntityRelation } from '../../shared/schemas/relations.ts';
import type { RpcStatus } from '../../shared/schemas/rpc.ts';
import type { AttributeScope } from '../../shared/schemas/telemetry.ts';
import type { TransportLimits } from '../../shared/schemas/transport-limits.ts';
import type { Principal } from './auth/principal.ts';

/** An alarm changed: what happened, the alarm after it (and before), where it shows, and who did it. */
export interface AlarmEvent {
  kind: AlarmChangeKind;
  alarm: AlarmInfo;
  old: Alarm | null;
  propagatedTo: { entityType: string; id: string }[];
  /** null: the platform itself (a rule node); a user's change also becomes a rule engine message */
  actor: Principal | null;
}

/** A relation was saved or deleted (by a user, or by the platform when actor is null). */
export interface RelationEvent {
  action: 'ADD_OR_UPDATE' | 'DELETED';
  relation: EntityRelation;
  actor: Principal | null;
}

/** What the platform announces once it is durable; the WebSocket and (later) the rule engine listen. */
export interface PlatformEventMap {
  telemetry: [{ deviceId: string; entries: { ts: number; values: Record<string, unknown> }[] }];
  attributes: [{ deviceId: string; scope: AttributeScope; values: Record<string, unknown>; ts: number }];
  attributesDeleted: [{ deviceId: string; scope: AttributeScope; keys: string[] }];
  /** time series / attributes of an entity other than a device (asset, ...) are durable: calculated fields */
  entityTelemetry: [
    { entityType: string; entityId: string; entries: { ts: number; values: Record<string, unknown> }[] },
  ];
  entityAttributes: [
    {
      entityType: string;
      entityId: string;
      scope: AttributeScope;
      values: Record<string, unknown>;
      ts: number;
    },
  ];
  deviceSaved: [{ deviceId: string; created: boolean }];
  /**
   * Rows of devices just read from the store in one go (the CONNECTs of a fleet): caches keyed by device
   * may take them instead of reading each device again. A later deviceSaved still invalidates them.
   */
  devicesRead: [
    {
      devices: readonly { id: string; device_profile_id: string }[];
      /** the inactivityTimeout server attribute of those of them that have one */
      inactivityTimeouts?: ReadonlyMap<string, unknown>;
    },
  ];
  deviceDeleted: [{ deviceId: string; name: string }];
  /** A device or asset profile was created, changed or deleted (its default rule chain or queue may differ). */
  profileChanged: [{ profileId: string }];
  credentialsChanged: [{ deviceId: string; oldToken: string | null; newToken: string }];
  transportLimitsChanged: [TransportLimits];
  /** these users' tokens issued before now no longer verify (password, authority, disabled, deleted) */
  sessionsEnded: [{ userIds: string[] }];
  /** a sandbox was imported (or the class start restored): anything cached from the store is stale */
  sandboxLoaded: [{ replacedAll: boolean }];
  alarm: [AlarmEvent];
  relation: [RelationEvent];
  /** a persistent RPC moved on (its new status is on disk) */
  rpcStatus: [{ id: string; deviceId: string; status: RpcStatus | 'DELETED' }];
  /** a server-side RPC request was made (it goes through the rule engine to the device) */
  rpcRequest: [RpcRequestEvent];
  /** a device answered a server-side RPC request */
  rpcResponse: [{ deviceId: string; id: number; response: unknown }];
  /** what the caller of a server-side RPC got in the end (persistent ones: their final status) */
  rpcResult: [RpcResultEvent];
  /** edge events are queued and durable */
  edgeEventsQueued: [{ events: { edgeId: string; type: string; action: string; entityId: string }[] }];
}

export interface RpcRequestEvent {
  deviceId: string;
  id: number;
  method: string;
  params: unknown;
  oneway: boolean;
  persistent: boolean;
}

export interface RpcResultEvent {
  deviceId: string;
  id: number;
  method: string;
  /** SUCCESSFUL, TIMEOUT, NO_ACTIVE_CONNECTION, FAILED, EXPIRED... */
  status: string;
  response?: unknown;
}

export class PlatformEvents extends EventEmitter<PlatformEventMap> {}

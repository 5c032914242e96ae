import { EventEmitter } from 'node:events';
import type { AttributeScope } from '../../shared/schemas/telemetry.ts';
import type { TransportLimits } from '../../shared/schemas/transport-limits.ts';

/** What the platform announces once it is durable; the WebSocket and (later) the rule engine listen. */
export interface PlatformEventMap {
  telemetry: [{ deviceId: string; entries: { ts: number; values: Record<string, unknown> }[] }];
  attributes: [{ deviceId: string; scope: AttributeScope; values: Record<string, unknown>; ts: number }];
  attributesDeleted: [{ deviceId: string; scope: AttributeScope; keys: string[] }];
  deviceSaved: [{ deviceId: string; created: boolean }];
  deviceDeleted: [{ deviceId: string; name: string }];
  credentialsChanged: [{ deviceId: string; oldToken: string | null; newToken: string }];
  transportLimitsChanged: [TransportLimits];
  /** these users' tokens issued before now no longer verify (password, authority, disabled, deleted) */
  sessionsEnded: [{ userIds: string[] }];
}

export class PlatformEvents extends EventEmitter<PlatformEventMap> {}

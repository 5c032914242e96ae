import type { SessionLimits } from '../../shared/schemas/transport-limits.ts';
import type { DeviceRow } from '../platform/devices.ts';
import { RPC_SERVICE_ID } from '../platform/rpc.ts';
import type { Services } from '../platform/services.ts';
import { newMsg } from '../platform/tb-msg.ts';
import type { TsEntry } from '../platform/telemetry-repository.ts';
import type { RuleEngine } from '../rule-engine/rule-engine.ts';
import type { DeviceActivity } from './device-activity.ts';
import type { LimitScope, TransportLimiter } from './rate-limiter.ts';
import { RateLimitedError, ReasonCode, TransportError } from './transport-error.ts';
import { StoreFullError } from '../platform/store-budget.ts';

/** ThingsBoard's transport.mqtt.msg_queue_size_per_device_limit, which it reports as maxInflightMessages. */
const MAX_INFLIGHT_MESSAGES = 100;

/** What every transport (MQTT, HTTP) hands a device's messages to: one path into the rule engine. */
export interface TransportCore {
  services: Services;
  engine: RuleEngine;
  activity: DeviceActivity;
  limiter: TransportLimiter;
  deviceLimit: number;
  /** the largest payload the transports take, reported by getSessionLimits */
  maxPayloadSize: number;
  /** set per publish while the MQTT inspector records: the rule engine message ids it became */
  msgIds?: string[];
}

/** The bucket a device's own message counts against: a gateway's own, or a device's. */
export function ownScope(device: DeviceRow, gateway: boolean): LimitScope {
  return { level: gateway ? 'gatewayDevice' : 'device', id: device.id };
}

/** The bucket of a message a gateway sends for a device behind it: shared by all of that gateway's devices. */
export function viaGatewayScope(gateway: DeviceRow): LimitScope {
  return { level: 'gateway', id: gateway.id };
}

/** Counts a message against the rate limits; throws RateLimitedError (and counts it) when one refuses it. */
export function consumeLimit(
  core: TransportCore,
  device: DeviceRow,
  scope: LimitScope,
  dataPoints = 0,
): void {
  if (!core.limiter.enabled) return;
  const hit = core.limiter.consume(scope, dataPoints);
  if (hit === null) return;
  core.limiter.recordRefused(device.id, hit);
  throw new RateLimitedError(hit, device.name);
}

function deviceMetadata(device: DeviceRow, extra: Record<string, string> = {}): Record<string, string> {
  return { deviceName: device.name, deviceType: device.type, ...extra };
}

async function processAll(core: TransportCore, msgs: ReturnType<typeof newMsg>[]): Promise<void> {
  if (core.msgIds) for (const m of msgs) core.msgIds.push(m.id);
  const results = await Promise.all(msgs.map((m) => core.engine.acknowledge(m)));
  const errors = results.flat();
  if (errors.length) throw new TransportError(ReasonCode.UNSPECIFIED_ERROR, errors.join('; '));
}

/** A full store answers 0x97 quota exceeded (MQTT v5; 3.1.1: a disconnect; HTTP: 507), before the rule engine runs. */
export async function admitWrite(core: TransportCore): Promise<void> {
  try {
    await core.services.storage.admit();
  } catch (err) {
    if (err instanceof StoreFullError) throw new TransportError(ReasonCode.QUOTA_EXCEEDED, err.message);
    throw err;
  }
}

/** One POST_TELEMETRY_REQUEST per timestamp, as ThingsBoard's transport does; resolves once stored. */
export async function postTelemetry(
  core: TransportCore,
  device: DeviceRow,
  entries: TsEntry[],
  scope: LimitScope,
): Promise<void> {
  if (core.limiter.enabled) {
    let dataPoints = 0;
    for (const e of entries) dataPoints += Object.keys(e.values).length;
    consumeLimit(core, device, scope, Math.max(1, dataPoints));
  }
  core.activity.touch(device);
  await admitWrite(core);
  const byTs = new Map<number, Record<string, unknown>>();
  for (const e of entries) {
    if (Object.keys(e.values).length === 0) continue;
    byTs.set(e.ts, { ...byTs.get(e.ts), ...e.values });
  }
  const origin = { entityType: 'DEVICE', id: device.id };
  await processAll(
    core,
    [...byTs].map(([ts, values]) =>
      newMsg('POST_TELEMETRY_REQUEST', origin, values, deviceMetadata(device, { ts: String(ts) })),
    ),
  );
}

export async function postAttributes(
  core: TransportCore,
  device: DeviceRow,
  values: Record<string, unknown>,
  scope: LimitScope,
): Promise<void> {
  consumeLimit(core, device, scope);
  core.activity.touch(device);
  if (Object.keys(values).length === 0) return;
  await admitWrite(core);
  await processAll(core, [
    newMsg(
      'POST_ATTRIBUTES_REQUEST',
      { entityType: 'DEVICE', id: device.id },
      values,
      deviceMetadata(device),
    ),
  ]);
}

/** ThingsBoard's transport answers this client-side RPC itself; it never reaches the rule engine. */
export function isSessionLimitsRequest(body: { method?: unknown }): boolean {
  return body.method === 'getSessionLimits';
}

/** The answer to getSessionLimits, in ThingsBoard's shape (a gateway also learns its devices' limits). */
export function sessionLimits(core: TransportCore, gateway: boolean): SessionLimits {
  const base = { maxPayloadSize: core.maxPayloadSize, maxInflightMessages: MAX_INFLIGHT_MESSAGES };
  if (!gateway) return { ...base, rateLimits: core.limiter.specsFor('device') };
  return {
    ...base,
    rateLimits: core.limiter.specsFor('gatewayDevice'),
    gatewayRateLimits: core.limiter.specsFor('gateway'),
  };
}

/**
 * A client-side RPC request (other than getSessionLimits) for the rule engine: TO_SERVER_RPC_REQUEST. Its
 * metadata names the session (serviceId, sessionId, requestId) an RPC Call Reply node answers on.
 */
export function clientRpcRequest(
  core: TransportCore,
  device: DeviceRow,
  requestId: string,
  body: unknown,
  scope: LimitScope,
  sessionId: string,
): Promise<void> {
  consumeLimit(core, device, scope);
  core.activity.touch(device);
  return processAll(core, [
    newMsg(
      'TO_SERVER_RPC_REQUEST',
      { entityType: 'DEVICE', id: device.id },
      body,
      deviceMetadata(device, { requestId, serviceId: RPC_SERVICE_ID, sessionId }),
    ),
  ]);
}

/** The values of one attribute scope as {key: value} (all of them when keys is undefined). */
export function attributeValues(
  core: TransportCore,
  deviceId: string,
  scope: 'CLIENT_SCOPE' | 'SHARED_SCOPE',
  keys?: string[],
): Record<string, unknown> {
  return Object.fromEntries(
    core.services.telemetry.attributes(deviceId, [scope], keys).map((a) => [a.key, a.value]),
  );
}

/**
 * A device's attribute request (MQTT v1/devices/me/attributes/request, HTTP GET attributes):
 * {client, shared}, each scope only when asked for (both when neither is) and left out when it has
 * nothing, as ThingsBoard's JsonConverter answers.
 */
export function attributeAnswer(
  core: TransportCore,
  deviceId: string,
  clientKeys: string[] | undefined,
  sharedKeys: string[] | undefined,
): Record<string, Record<string, unknown>> {
  const all = !clientKeys && !sharedKeys;
  const answer: Record<string, Record<string, unknown>> = {};
  if (all || clientKeys) {
    const values = attributeValues(core, deviceId, 'CLIENT_SCOPE', clientKeys);
    if (Object.keys(values).length) answer.client = values;
  }
  if (all || sharedKeys) {
    const values = attributeValues(core, deviceId, 'SHARED_SCOPE', sharedKeys);
    if (Object.keys(values).length) answer.shared = values;
  }
  return answer;
}

/** "a, b,c" as ['a', 'b', 'c']; undefined when it names no key. */
export function keyList(value: unknown): string[] | undefined {
  if (typeof value !== 'string') return undefined;
  const keys = value
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  return keys.length ? keys : undefined;
}

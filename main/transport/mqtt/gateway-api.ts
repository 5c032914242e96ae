import { DeviceLimitError, type DeviceRow } from '../../platform/devices.ts';
import type { TsEntry } from '../../platform/telemetry-repository.ts';
import {
  isObject,
  TransportError,
  parseJsonPayload,
  payloadInvalid,
  ReasonCode,
} from '../transport-error.ts';
import { sendJson, type Session } from './session-registry.ts';
import { attributeValues, consumeLimit, postAttributes, postTelemetry } from '../device-messages.ts';
import type { TransportContext } from './transport-context.ts';

function deviceNameOf(body: Record<string, unknown>): string {
  if (typeof body.device !== 'string' || body.device === '')
    throw payloadInvalid("'device' must be a non-empty string");
  return body.device;
}

function objectPayload(payload: Buffer, shape: string): Record<string, unknown> {
  const body = parseJsonPayload(payload);
  if (!isObject(body)) throw payloadInvalid(`Expected a JSON object: ${shape}`);
  return body;
}

/** Connects a device through the gateway session (creating it if needed); implicit for every gateway topic. */
export async function connectSubDevice(
  ctx: TransportContext,
  session: Session,
  name: string,
  type?: unknown,
): Promise<DeviceRow> {
  const known = session.subDevices.get(name);
  if (known) return known;
  let device: DeviceRow;
  try {
    device = await ctx.services.devices.connectViaGateway(
      session.device,
      name,
      typeof type === 'string' && type !== '' ? type : 'default',
      ctx.deviceLimit,
    );
  } catch (err) {
    if (err instanceof DeviceLimitError) throw new TransportError(ReasonCode.QUOTA_EXCEEDED, err.message);
    throw new TransportError(ReasonCode.UNSPECIFIED_ERROR, (err as Error).message);
  }
  ctx.registry.connectSubDevice(session, device);
  ctx.activity.connected(device);
  ctx.services.rpc.deviceReady(device.id);
  return device;
}

/** Telemetry entries of one device in a gateway message: [{ts, values}|{k:v}]; non-objects are skipped. */
function gatewayEntries(list: unknown[], now: number): TsEntry[] {
  const entries: TsEntry[] = [];
  for (const item of list) {
    if (!isObject(item)) continue;
    if ('ts' in item && 'values' in item) {
      const ts = typeof item.ts === 'string' ? Number(item.ts) : item.ts;
      if (typeof ts !== 'number' || !Number.isFinite(ts) || !isObject(item.values)) {
        throw payloadInvalid('A telemetry entry is {"ts": ms, "values": {...}}');
      }
      entries.push({ ts: Math.trunc(ts), values: item.values });
    } else {
      const { metadata: _ignored, ...values } = item;
      entries.push({ ts: now, values });
    }
  }
  return entries;
}

/** The gateway MQTT API (v1/gateway/...). Returns false when the topic is not a gateway topic. */
export async function handleGatewayTopic(
  ctx: TransportContext,
  session: Session,
  topic: string,
  payload: Buffer,
): Promise<boolean> {
  ctx.activity.touch(session.device);
  const scope = session.scopes.viaGateway;
  switch (topic) {
    case 'v1/gateway/connect': {
      const body = objectPayload(payload, '{"device":"name","type":"profile"}');
      const name = deviceNameOf(body);
      consumeLimit(ctx, session.subDevices.get(name) ?? session.device, scope);
      await connectSubDevice(ctx, session, name, body.type);
      return true;
    }
    case 'v1/gateway/disconnect': {
      const body = objectPayload(payload, '{"device":"name"}');
      const device = ctx.registry.disconnectSubDevice(session, deviceNameOf(body));
      if (device) ctx.activity.disconnected(device);
      return true;
    }
    case 'v1/gateway/telemetry': {
      const body = objectPayload(payload, '{"device": [{"ts": ms, "values": {...}}]}');
      const now = Date.now();
      await Promise.all(
        Object.entries(body).map(async ([name, list]) => {
          if (!Array.isArray(list)) return;
          const entries = gatewayEntries(list, now);
          const device = await connectSubDevice(ctx, session, name);
          if (entries.length) await postTelemetry(ctx, device, entries, scope);
        }),
      );
      return true;
    }
    case 'v1/gateway/attributes': {
      const body = objectPayload(payload, '{"device": {"key": value}}');
      for (const [name, values] of Object.entries(body)) {
        if (!isObject(values)) throw payloadInvalid(`Attributes of '${name}' must be a JSON object`);
      }
      await Promise.all(
        Object.entries(body).map(async ([name, values]) => {
          const device = await connectSubDevice(ctx, session, name);
          await postAttributes(ctx, device, values as Record<string, unknown>, scope);
        }),
      );
      return true;
    }
    case 'v1/gateway/attributes/request': {
      const body = objectPayload(payload, '{"id":1,"device":"name","client":true,"key":"k"}');
      const name = deviceNameOf(body);
      if (typeof body.id !== 'number' || !Number.isInteger(body.id))
        throw payloadInvalid("'id' must be an integer");
      // A request that asks for nothing is refused before it can connect (and so create) the device.
      if (!asksForKeys(body))
        throw new TransportError(
          ReasonCode.IMPLEMENTATION_SPECIFIC_ERROR,
          "Give 'key' or 'keys' (or 'client'/'shared' arrays)",
        );
      const device = await connectSubDevice(ctx, session, name);
      consumeLimit(ctx, device, scope);
      try {
        sendJson(session, 'v1/gateway/attributes/response', answerAttributeRequest(ctx, device, body));
      } catch (err) {
        throw new TransportError(ReasonCode.IMPLEMENTATION_SPECIFIC_ERROR, (err as Error).message);
      }
      return true;
    }
    case 'v1/gateway/rpc': {
      const body = objectPayload(payload, '{"device":"name","id":1,"data":{...}}');
      const name = deviceNameOf(body);
      if (typeof body.id !== 'number') throw payloadInvalid("'id' must be the request's integer id");
      const device = await connectSubDevice(ctx, session, name);
      consumeLimit(ctx, device, scope);
      ctx.services.rpc.respond(device.id, body.id, body.data ?? null);
      return true;
    }
    case 'v1/gateway/claim': {
      const body = objectPayload(payload, '{"device": {"secretKey":"..","durationMs":N}}');
      await Promise.all(
        Object.entries(body).map(async ([name, claim]) => {
          const device = await connectSubDevice(ctx, session, name);
          consumeLimit(ctx, device, scope);
          const c = isObject(claim) ? claim : {};
          await ctx.services.claims.allowClaim(device, c.secretKey, c.durationMs);
        }),
      );
      return true;
    }
    default:
      return false;
  }
}

function asksForKeys(body: Record<string, unknown>): boolean {
  return (
    Array.isArray(body.client) ||
    Array.isArray(body.shared) ||
    typeof body.key === 'string' ||
    (Array.isArray(body.keys) && body.keys.some((k) => typeof k === 'string'))
  );
}

/**
 * Both request shapes: ThingsBoard's {"client": bool, "key"|"keys"} (one scope) and the spec's
 * {"client": [..], "shared": [..]} (both scopes). Answers as ThingsBoard does: "value" for one key
 * found, "values" otherwise, nothing when nothing was found.
 */
export function answerAttributeRequest(
  ctx: TransportContext,
  device: DeviceRow,
  body: Record<string, unknown>,
): Record<string, unknown> {
  const answer: Record<string, unknown> = { id: body.id, device: device.name };
  const strings = (v: unknown) =>
    Array.isArray(v) ? v.filter((k): k is string => typeof k === 'string') : undefined;
  if (Array.isArray(body.client) || Array.isArray(body.shared)) {
    // An empty (or absent) list asks for nothing of that scope; attributeValues would read it as "all".
    const scopeValues = (scope: 'CLIENT_SCOPE' | 'SHARED_SCOPE', list: unknown) => {
      const keys = strings(list);
      return keys && keys.length > 0 ? attributeValues(ctx, device.id, scope, keys) : {};
    };
    const values = {
      ...scopeValues('CLIENT_SCOPE', body.client),
      ...scopeValues('SHARED_SCOPE', body.shared),
    };
    if (Object.keys(values).length) answer.values = values;
    return answer;
  }
  const keys = typeof body.key === 'string' ? [body.key] : strings(body.keys);
  if (!keys || keys.length === 0) throw payloadInvalid("Give 'key' or 'keys' (or 'client'/'shared' arrays)");
  const values = attributeValues(
    ctx,
    device.id,
    body.client === true ? 'CLIENT_SCOPE' : 'SHARED_SCOPE',
    keys,
  );
  const found = Object.keys(values);
  if (keys.length === 1 && found.length === 1) answer.value = values[found[0]!];
  else if (found.length) answer.values = values;
  return answer;
}

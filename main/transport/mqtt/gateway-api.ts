import { DeviceLimitError, type DeviceRow } from '../../platform/devices.ts';
import { StoreFullError } from '../../platform/store-budget.ts';
import { checkName } from '../../../shared/limits.ts';
import type { TsEntry } from '../../platform/telemetry-repository.ts';
import {
  isObject,
  TransportError,
  parseJsonPayload,
  payloadInvalid,
  ReasonCode,
} from '../transport-error.ts';
import { entryTs, keyedValues, type ParseResult } from '../../platform/telemetry-payload.ts';
import { sendJson, type Session } from './session-registry.ts';
import { attributeValues, consumeLimit, postAttributes, postTelemetry } from '../device-messages.ts';
import type { TransportContext } from './transport-context.ts';

/** A sub-device's name as every gateway topic gives it: trimmed, non-blank, at most 255 characters. */
function subDeviceName(value: unknown, where = "'device'"): string {
  const checked = checkName(value, where);
  if (!checked.ok) throw payloadInvalid(checked.error);
  return checked.name;
}

function deviceNameOf(body: Record<string, unknown>): string {
  return subDeviceName(body.device);
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
  rawName: string,
  type?: unknown,
): Promise<DeviceRow> {
  // the telemetry, attributes and claim topics name devices by their keys: checked here, for every topic
  const name = subDeviceName(rawName, `Device name '${rawName.slice(0, 40)}'`);
  const profile = typeof type === 'string' && type.trim() !== '' ? subDeviceName(type, "'type'") : 'default';
  const known = session.subDevices.get(name);
  if (known) return known;
  if (session.confined) {
    const existing = ctx.services.devices.findRowByName(name);
    if (existing && !ctx.services.devices.belongsToGateway(session.device.id, existing)) {
      process.stderr.write(
        `gateway '${session.device.name}' (confined) refused: device '${name}' was neither created by it nor assigned to it\n`,
      );
      throw new TransportError(
        ReasonCode.NOT_AUTHORIZED,
        `Device '${name}' was neither created by this gateway nor assigned to it (gatewayConfined)`,
      );
    }
  }
  let device: DeviceRow;
  try {
    device = await ctx.services.devices.connectViaGateway(session.device, name, profile, ctx.deviceLimit);
  } catch (err) {
    if (err instanceof DeviceLimitError || err instanceof StoreFullError)
      throw new TransportError(ReasonCode.QUOTA_EXCEEDED, err.message);
    throw new TransportError(ReasonCode.UNSPECIFIED_ERROR, (err as Error).message);
  }
  ctx.registry.connectSubDevice(session, device);
  ctx.activity.connected(device);
  ctx.services.rpc.deviceReady(device.id);
  return device;
}

/** Telemetry entries of one device in a gateway message: [{ts, values}|{k:v}]; non-objects are skipped. */
function gatewayEntries(name: string, list: unknown[], now: number): TsEntry[] {
  const entries: TsEntry[] = [];
  const valid = <T>(result: ParseResult<T>): T => {
    if (!result.ok) throw payloadInvalid(result.error);
    return result.value;
  };
  for (const [i, item] of list.entries()) {
    if (!isObject(item)) continue;
    const where = `${name.slice(0, 40)}[${i}]`;
    if ('ts' in item && 'values' in item) {
      if (!isObject(item.values)) throw payloadInvalid('A telemetry entry is {"ts": ms, "values": {...}}');
      entries.push({ ts: valid(entryTs(item.ts, where)), values: valid(keyedValues(item.values, where)) });
    } else {
      const { metadata: _ignored, ...values } = item;
      entries.push({ ts: now, values: valid(keyedValues(values, where)) });
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
      // every device's name and entries are checked before any device is created
      const perDevice = Object.entries(body).flatMap(([name, list]) => {
        if (!Array.isArray(list)) return [];
        subDeviceName(name, `Device name '${name.slice(0, 40)}'`);
        return [[name, gatewayEntries(name, list, now)] as const];
      });
      await Promise.all(
        perDevice.map(async ([name, entries]) => {
          const device = await connectSubDevice(ctx, session, name);
          if (entries.length) await postTelemetry(ctx, device, entries, scope);
        }),
      );
      return true;
    }
    case 'v1/gateway/attributes': {
      const body = objectPayload(payload, '{"device": {"key": value}}');
      const perDevice = Object.entries(body).map(([name, values]) => {
        if (!isObject(values)) throw payloadInvalid(`Attributes of '${name}' must be a JSON object`);
        subDeviceName(name, `Device name '${name.slice(0, 40)}'`);
        const keyed = keyedValues(values, `attributes of '${name.slice(0, 40)}'`);
        if (!keyed.ok) throw payloadInvalid(keyed.error);
        return [name, keyed.value] as const;
      });
      await Promise.all(
        perDevice.map(async ([name, values]) => {
          const device = await connectSubDevice(ctx, session, name);
          await postAttributes(ctx, device, values, scope);
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
      await ctx.services.rpc.respond(device.id, body.id, body.data ?? null);
      return true;
    }
    case 'v1/gateway/claim': {
      const body = objectPayload(payload, '{"device": {"secretKey":"..","durationMs":N}}');
      for (const name of Object.keys(body)) subDeviceName(name, `Device name '${name.slice(0, 40)}'`);
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

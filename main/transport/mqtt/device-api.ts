import { jsonTooDeep, tooDeepMessage } from '../../../shared/limits.ts';
import { parseAttributes, parseTelemetry } from '../../platform/telemetry-payload.ts';
import {
  attributeAnswer,
  clientRpcRequest,
  keyList,
  consumeLimit,
  isSessionLimitsRequest,
  postAttributes,
  postTelemetry,
  sessionLimits,
} from '../device-messages.ts';
import {
  isObject,
  TransportError,
  parseJsonPayload,
  payloadInvalid,
  ReasonCode,
} from '../transport-error.ts';
import { sendJson, type Session } from './session-registry.ts';
import type { TransportContext } from './transport-context.ts';

const ATTRIBUTE_REQUEST = /^v1\/devices\/me\/attributes\/request\/(\d+)$/;
const RPC_RESPONSE = /^v1\/devices\/me\/rpc\/response\/(\d+)$/;
const RPC_REQUEST = /^v1\/devices\/me\/rpc\/request\/(\d+)$/;

/** A device's RPC answer: JSON when it parses, else the text as it is (simple firmware answers "OK"). */
function rpcAnswer(payload: Buffer): unknown {
  if (payload.length === 0) return null;
  const text = payload.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return text;
  }
  const deep = jsonTooDeep(value, 'payload');
  if (deep) throw payloadInvalid(tooDeepMessage(deep));
  return value;
}

/** ThingsBoard's device MQTT API (v1/devices/me/...). Returns false when the topic is not a device topic. */
export async function handleDeviceTopic(
  ctx: TransportContext,
  session: Session,
  topic: string,
  payload: Buffer,
): Promise<boolean> {
  const device = session.device;
  const scope = session.scopes.own;
  if (topic === 'v1/devices/me/telemetry') {
    const parsed = parseTelemetry(parseJsonPayload(payload), Date.now());
    if (!parsed.ok) throw payloadInvalid(parsed.error);
    await postTelemetry(ctx, device, parsed.value, scope);
    return true;
  }
  if (topic === 'v1/devices/me/attributes') {
    const parsed = parseAttributes(parseJsonPayload(payload));
    if (!parsed.ok) throw payloadInvalid(parsed.error);
    await postAttributes(ctx, device, parsed.value, scope);
    return true;
  }
  let m = ATTRIBUTE_REQUEST.exec(topic);
  if (m) {
    const body = payload.length ? parseJsonPayload(payload) : {};
    if (!isObject(body))
      throw payloadInvalid('An attribute request is a JSON object {"clientKeys":"a,b","sharedKeys":"c"}');
    consumeLimit(ctx, device, scope);
    ctx.activity.touch(device);
    try {
      const answer = attributeAnswer(ctx, device.id, keyList(body.clientKeys), keyList(body.sharedKeys));
      sendJson(session, `v1/devices/me/attributes/response/${m[1]}`, answer);
    } catch (err) {
      throw new TransportError(ReasonCode.IMPLEMENTATION_SPECIFIC_ERROR, (err as Error).message);
    }
    return true;
  }
  m = RPC_RESPONSE.exec(topic);
  if (m) {
    consumeLimit(ctx, device, scope);
    ctx.activity.touch(device);
    await ctx.services.rpc.respond(device.id, Number(m[1]), rpcAnswer(payload));
    return true;
  }
  m = RPC_REQUEST.exec(topic);
  if (m) {
    const body = parseJsonPayload(payload);
    if (!isObject(body) || typeof body.method !== 'string')
      throw payloadInvalid('A client RPC request is {"method":"..","params":{..}}');
    if (isSessionLimitsRequest(body)) {
      sendJson(session, `v1/devices/me/rpc/response/${m[1]}`, sessionLimits(ctx, session.gateway));
      return true;
    }
    await clientRpcRequest(ctx, device, m[1]!, body, scope, session.id);
    return true;
  }
  if (topic === 'v1/devices/me/claim') {
    const body = payload.length ? parseJsonPayload(payload) : {};
    if (!isObject(body)) throw payloadInvalid('A claim is a JSON object {"secretKey":"..","durationMs":N}');
    consumeLimit(ctx, device, scope);
    ctx.activity.touch(device);
    await ctx.services.claims.allowClaim(device, body.secretKey, body.durationMs);
    return true;
  }
  return false;
}

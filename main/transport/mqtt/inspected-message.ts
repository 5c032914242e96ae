import type { TappedPublish } from '../../../shared/mqtt-tap-events.ts';
import type { InspectedMessage, InspectedPayload } from '../../../shared/schemas/mqtt-inspector.ts';

const HEX_BYTES = 256;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A payload as text, JSON or hex, with its size (formatted only when someone looks). */
export function inspectPayload(bytes: Uint8Array): InspectedPayload {
  const hex = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, HEX_BYTES)).toString('hex');
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { size: bytes.length, format: 'binary', hex };
  }
  try {
    return { size: bytes.length, format: 'json', text, json: JSON.parse(text) as unknown, hex };
  } catch {
    return { size: bytes.length, format: 'text', text, hex };
  }
}

const BY_KEYS = new Set(['v1/gateway/telemetry', 'v1/gateway/attributes', 'v1/gateway/claim']);

/** The names of the devices a gateway message is about (its keys, or its "device" field). */
export function gatewayDeviceNames(r: TappedPublish, payload: InspectedPayload): string[] {
  if (!r.gateway || !r.topic.startsWith('v1/gateway/')) return [];
  const body = payload.json;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const record = body as Record<string, unknown>;
  if (typeof record.device === 'string') return [record.device];
  if (r.direction === 'in' && BY_KEYS.has(r.topic)) return Object.keys(record).slice(0, 100);
  return [];
}

/** A tapped publish as the inspector's API shows it; device ids of named devices by lookup. */
export function inspectedMessage(
  r: TappedPublish,
  deviceIdOf: (name: string) => string | null,
): InspectedMessage {
  const payload = inspectPayload(r.payload);
  const devices = gatewayDeviceNames(r, payload).map((name) => ({ id: deviceIdOf(name), name }));
  return {
    seq: r.seq,
    ts: r.ts,
    direction: r.direction,
    sessionId: r.sessionId,
    clientId: r.clientId,
    device: { id: r.deviceId, name: r.deviceName },
    gateway: r.gateway,
    devices,
    protocolVersion: r.protocolVersion,
    topic: r.topic,
    qos: r.qos,
    retain: r.retain,
    ...(r.properties ? { properties: jsonSafe(r.properties) } : {}),
    payload,
    reasonCode: r.reasonCode,
    ...(r.reason ? { reason: r.reason } : {}),
    msgIds: r.msgIds ?? [],
  };
}

/** v5 properties with Buffers (correlation data) as hex. */
function jsonSafe(properties: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(properties)) out[k] = Buffer.isBuffer(v) ? v.toString('hex') : v;
  return out;
}

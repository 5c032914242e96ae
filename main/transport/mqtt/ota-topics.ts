import type { OtaPackageType } from '../../../shared/schemas/ota.ts';
import { consumeLimit } from '../device-messages.ts';
import { chunkOf, devicePackage } from '../ota-chunks.ts';
import { payloadInvalid } from '../transport-error.ts';
import { sendBytes, type Session } from './session-registry.ts';
import type { TransportContext } from './transport-context.ts';

const PACKAGE_REQUEST = /^v2\/(fw|sw)\/request\/(\d+)\/chunk\/(\d+)$/;
/** ThingsBoard's MqttTopics.DEVICE_FIRMWARE_ERROR_TOPIC: errors of firmware and software requests alike */
export const OTA_ERROR_TOPIC = 'v2/fw/error';
/** ThingsBoard's answer when the asked chunk size exceeds the transport's largest payload */
export const PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE';
/** chunk sizes remembered per session and request id (a later request may leave the size out) */
const MAX_REMEMBERED = 64;

const chunkSizes = new WeakMap<Session, Map<string, number>>();

/**
 * ThingsBoard's MQTT package download: v2/fw/request/{requestId}/chunk/{chunk} (v2/sw/... for software)
 * with the chunk size as the payload (empty: the size given before for this request id, or the whole
 * package) is answered on v2/fw/response/{requestId}/chunk/{chunk} with the chunk's bytes; a chunk past
 * the end is answered with an empty payload. Errors (no package: NOT_FOUND, a URL package: FAILURE, a
 * chunk size above the largest payload: PAYLOAD_TOO_LARGE) go to v2/fw/error. False for other topics.
 */
export async function handleOtaTopic(
  ctx: TransportContext,
  session: Session,
  topic: string,
  payload: Buffer,
): Promise<boolean> {
  const m = PACKAGE_REQUEST.exec(topic);
  if (!m) return false;
  const [, kind, requestId, chunkText] = m as unknown as [string, 'fw' | 'sw', string, string];
  const text = payload.toString('utf8').trim();
  if (text !== '' && !/^\d{1,10}$/.test(text))
    throw payloadInvalid(
      `The payload of ${topic} is the chunk size in bytes (an integer), got '${text.slice(0, 40)}'`,
    );
  const chunk = Number(chunkText);
  if (!Number.isSafeInteger(chunk)) throw payloadInvalid(`Chunk number ${chunkText} is out of range`);
  consumeLimit(ctx, session.device, session.scopes.own);
  ctx.activity.touch(session.device);
  let sizes = chunkSizes.get(session);
  if (!sizes) chunkSizes.set(session, (sizes = new Map()));
  let chunkSize = text === '' ? 0 : Number(text);
  if (chunkSize > 0) {
    if (!sizes.has(requestId) && sizes.size >= MAX_REMEMBERED) sizes.delete(sizes.keys().next().value!);
    sizes.set(requestId, chunkSize);
  } else chunkSize = sizes.get(requestId) ?? 0;
  if (chunkSize > ctx.maxPayloadSize) {
    sendBytes(session, OTA_ERROR_TOPIC, Buffer.from(PAYLOAD_TOO_LARGE));
    return true;
  }
  const type: OtaPackageType = kind === 'fw' ? 'FIRMWARE' : 'SOFTWARE';
  const answer = await devicePackage(ctx, session.device, type);
  if (answer.status !== 'SUCCESS') {
    sendBytes(session, OTA_ERROR_TOPIC, Buffer.from(answer.status));
    return true;
  }
  const data = chunkOf(answer.data, chunkSize, chunk);
  if (chunkSize < 1 && data.length > ctx.maxPayloadSize) {
    sendBytes(session, OTA_ERROR_TOPIC, Buffer.from(PAYLOAD_TOO_LARGE));
    return true;
  }
  sendBytes(session, `v2/${kind}/response/${requestId}/chunk/${chunk}`, data);
  return true;
}

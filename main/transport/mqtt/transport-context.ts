import type { DeviceRow } from '../../platform/devices.ts';
import type { Services } from '../../platform/services.ts';
import type { TsEntry } from '../../platform/telemetry-repository.ts';
import type { RuleEngine } from '../../rule-engine/rule-engine.ts';
import { newMsg } from '../../platform/tb-msg.ts';
import type { DeviceActivity } from './device-activity.ts';
import { MqttError, ReasonCode } from './mqtt-error.ts';
import type { SessionRegistry } from './session-registry.ts';

/** What the device and gateway topic handlers share. */
export interface TransportContext {
  services: Services;
  engine: RuleEngine;
  registry: SessionRegistry;
  activity: DeviceActivity;
  deviceLimit: number;
}

function deviceMetadata(device: DeviceRow, extra: Record<string, string> = {}): Record<string, string> {
  return { deviceName: device.name, deviceType: device.type, ...extra };
}

async function processAll(ctx: TransportContext, msgs: ReturnType<typeof newMsg>[]): Promise<void> {
  const results = await Promise.all(msgs.map((m) => ctx.engine.process(m)));
  const errors = results.flat();
  if (errors.length) throw new MqttError(ReasonCode.UNSPECIFIED_ERROR, errors.join('; '));
}

/** One POST_TELEMETRY_REQUEST per timestamp, as ThingsBoard's transport does; resolves once stored. */
export async function postTelemetry(
  ctx: TransportContext,
  device: DeviceRow,
  entries: TsEntry[],
): Promise<void> {
  ctx.activity.touch(device);
  const byTs = new Map<number, Record<string, unknown>>();
  for (const e of entries) {
    if (Object.keys(e.values).length === 0) continue;
    byTs.set(e.ts, { ...byTs.get(e.ts), ...e.values });
  }
  const origin = { entityType: 'DEVICE', id: device.id };
  await processAll(
    ctx,
    [...byTs].map(([ts, values]) =>
      newMsg('POST_TELEMETRY_REQUEST', origin, values, deviceMetadata(device, { ts: String(ts) })),
    ),
  );
}

export async function postAttributes(
  ctx: TransportContext,
  device: DeviceRow,
  values: Record<string, unknown>,
): Promise<void> {
  ctx.activity.touch(device);
  if (Object.keys(values).length === 0) return;
  await processAll(ctx, [
    newMsg(
      'POST_ATTRIBUTES_REQUEST',
      { entityType: 'DEVICE', id: device.id },
      values,
      deviceMetadata(device),
    ),
  ]);
}

export function clientRpcRequest(
  ctx: TransportContext,
  device: DeviceRow,
  requestId: string,
  body: unknown,
): Promise<void> {
  ctx.activity.touch(device);
  return processAll(ctx, [
    newMsg(
      'TO_SERVER_RPC_REQUEST',
      { entityType: 'DEVICE', id: device.id },
      body,
      deviceMetadata(device, { requestId }),
    ),
  ]);
}

import type { RecordingInfo } from '../../../shared/schemas/recordings-api.ts';
import type { TestPlatform } from '../../helpers/platform.ts';
import { okJson } from '../api/api-kit.ts';
import { connect, publishOk } from '../transport/mqtt/mqtt-kit.ts';

/** A new device (its token is its name) recorded sending one telemetry message; the recording stopped. */
export async function recordOneMessage(
  p: TestPlatform,
  token: string,
  o: { accessToken: string; deviceName: string; name: string; telemetry: Record<string, unknown> },
): Promise<RecordingInfo> {
  await okJson(
    p.http(`/api/device?accessToken=${o.accessToken}`, {
      method: 'POST',
      token,
      json: { name: o.deviceName, type: 'default' },
    }),
  );
  const rec = await okJson<RecordingInfo>(
    p.http('/api/sandboard/recordings', {
      method: 'POST',
      token,
      json: { durationMs: 60_000, name: o.name },
    }),
  );
  const device = await connect(p.urls.mqtt, o.accessToken, 4);
  await publishOk(device, 'v1/devices/me/telemetry', o.telemetry);
  await device.endAsync();
  return okJson<RecordingInfo>(p.http(`/api/sandboard/recordings/${rec.id}/stop`, { method: 'POST', token }));
}

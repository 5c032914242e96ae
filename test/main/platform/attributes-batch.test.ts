import { describe, expect, it } from 'vitest';
import { createDevice, okJson, useSharedPlatform } from '../api/api-kit.ts';

/**
 * TelemetryService.saveAttributesBatch (what the transport saves for a fleet's CONNECTs) writes many rows a
 * statement: every device gets its own values, and a key given twice in one batch keeps the later value.
 */
describe('a batch of several devices attributes', () => {
  const platform = useSharedPlatform();

  it('stores each device its own values, the last one given for a key repeated in the batch', async () => {
    const p = platform();
    const token = await p.login();
    // 31 devices x 3 keys + 1 repeat: 94 rows, more than one statement of each size
    const devices = await Promise.all(
      Array.from({ length: 31 }, (_, i) =>
        createDevice(p, token, { name: `batch-attrs-${i}`, type: 'batch' }),
      ),
    );
    const ids = devices.map((d) => d.id.id);
    await p.services.telemetry.saveAttributesBatch([
      ...ids.map((deviceId, i) => ({
        deviceId,
        scope: 'SERVER_SCOPE' as const,
        values: { active: true, lastConnectTime: 1_000 + i, note: `device ${i}` },
      })),
      { deviceId: ids[0]!, scope: 'SERVER_SCOPE', values: { active: false } },
    ]);

    const stored = await Promise.all(
      ids.map((id) =>
        okJson<{ key: string; value: unknown }[]>(
          p.http(
            `/api/plugins/telemetry/DEVICE/${id}/values/attributes/SERVER_SCOPE?keys=active,lastConnectTime,note`,
            { token },
          ),
        ),
      ),
    );
    const byKey = stored.map((attrs) => Object.fromEntries(attrs.map((a) => [a.key, a.value])));
    expect(byKey[0]).toEqual({ active: false, lastConnectTime: 1_000, note: 'device 0' });
    for (let i = 1; i < ids.length; i++)
      expect(byKey[i]).toEqual({ active: true, lastConnectTime: 1_000 + i, note: `device ${i}` });
  });
});

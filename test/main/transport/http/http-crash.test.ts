import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  serveLogin as login,
  serveRest as call,
  startServe,
  type ServeProcess,
} from '../../../helpers/serve-process.ts';
import { tempDir } from '../../../helpers/temp-dir.ts';

/**
 * A 200 of the device HTTP API means stored: `sandboard serve` is SIGKILLed while devices post
 * telemetry, and a new start on the same data directory must hold every answered value; so must a
 * device provisioning created and the transport limits saved just before a kill.
 */
const BASE = Math.floor((Date.now() - 3_600_000) / 60_000) * 60_000;

async function kill(serve: ServeProcess): Promise<void> {
  serve.child.kill('SIGKILL');
  const [, signal] = (await once(serve.child, 'exit')) as [number | null, string | null];
  expect(signal).toBe('SIGKILL');
}

describe('device HTTP API under SIGKILL', () => {
  it(
    'keeps every answered telemetry post, a provisioned device and the saved limits',
    { timeout: 60_000 },
    async () => {
      const dir = tempDir('sandboard-http-crash-');
      const args = ['--data-dir', dir, '--http-port', '0', '--mqtt-port', '0', '--analytics-port', '0'];
      const first = await startServe(args);
      const admin = await login(first);
      await call(first, '/api/device?accessToken=crash-http-token', {
        method: 'POST',
        token: admin,
        body: JSON.stringify({ name: 'crash-http' }),
      });
      const limits = await call<Record<string, string>>(first, '/api/sandboard/transportLimits', {
        token: admin,
      });
      await call(first, '/api/sandboard/transportLimits', {
        method: 'POST',
        token: admin,
        body: JSON.stringify({ ...limits, transportDeviceMsgRateLimit: '1000:1' }),
      });
      await call(first, '/api/deviceProfile', {
        method: 'POST',
        token: admin,
        body: JSON.stringify({
          name: 'crash-prov',
          provisionType: 'ALLOW_CREATE_NEW_DEVICES',
          provisionDeviceKey: 'crash-key',
          profileData: {
            provisionConfiguration: {
              type: 'ALLOW_CREATE_NEW_DEVICES',
              provisionDeviceSecret: 'crash-secret',
            },
          },
        }),
      });
      const provisioned = await call<{ status: string; credentialsValue: string }>(
        first,
        '/api/v1/provision',
        {
          method: 'POST',
          body: JSON.stringify({
            deviceName: 'crash-provisioned',
            provisionDeviceKey: 'crash-key',
            provisionDeviceSecret: 'crash-secret',
          }),
        },
      );
      expect(provisioned.status).toBe('SUCCESS');

      // Posts in flight from several "devices" at once; the kill lands among them.
      const answered: number[] = [];
      let stop = false;
      const poster = async (lane: number) => {
        for (let seq = 0; !stop; seq++) {
          const ts = BASE + lane * 100_000 + seq;
          try {
            const res = await fetch(`${first.urls.http}/api/v1/crash-http-token/telemetry`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ ts, values: { seq: ts } }),
            });
            if (res.status === 200) answered.push(ts);
          } catch {
            return; // the server is gone
          }
        }
      };
      const lanes = [0, 1, 2, 3].map(poster);
      const killAfter = 20 + Math.floor(Math.random() * 40);
      await expect.poll(() => answered.length, { timeout: 20_000, interval: 5 }).toBeGreaterThan(killAfter);
      await kill(first);
      stop = true;
      await Promise.all(lanes);
      expect(answered.length).toBeGreaterThan(0);

      const second = await startServe(args);
      const again = await login(second);
      const device = await call<{ id: { id: string } }>(second, '/api/tenant/devices?deviceName=crash-http', {
        token: again,
      });
      const stored = await call<Record<string, { ts: number }[]>>(
        second,
        `/api/plugins/telemetry/DEVICE/${device.id.id}/values/timeseries?keys=seq&startTs=${BASE}&endTs=${BASE + 1_000_000}&limit=100000`,
        { token: again },
      );
      const storedTs = new Set((stored.seq ?? []).map((e) => e.ts));
      expect(answered.filter((ts) => !storedTs.has(ts))).toEqual([]);
      expect(
        (await call<Record<string, string>>(second, '/api/sandboard/transportLimits', { token: again }))
          .transportDeviceMsgRateLimit,
      ).toBe('1000:1');
      const res = await fetch(`${second.urls.http}/api/v1/${provisioned.credentialsValue}/attributes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"after":"restart"}',
      });
      expect(res.status).toBe(200);
      await kill(second);
    },
  );
});

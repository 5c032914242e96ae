import { afterEach, describe, expect, it } from 'vitest';
import type { PlatformStats } from '../../../shared/schemas/sandboard.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import {
  closeAll,
  connect,
  expectRefused,
  newDevice,
  publish,
  timeseries,
  type Api,
} from '../transport/mqtt/mqtt-kit.ts';
import { expectTbError, okEmpty, okJson, withLoginPair } from './api-kit.ts';

const BUDGET = 1024 * 1024;
const QUOTA_EXCEEDED = 0x97;
const T0 = Date.UTC(2026, 0, 1);

type Store = NonNullable<PlatformStats['store']>;

/**
 * A 1 MiB store budget filled step by step, as a simulation left running overnight would fill the
 * default one: the Overview's warning from 80%, size-based retention (oldest telemetry first) from 90%,
 * and, when only attributes and entities are left, refusals (HTTP 507, MQTT 0x97) instead of a crash.
 */
describe('the store budget', () => {
  afterEach(closeAll);

  it('warns at 80%, drops the oldest telemetry from 90%, refuses writes when nothing is left to drop', async () => {
    const p = withLoginPair(await startTestPlatform({ storeBudgetBytes: BUDGET, telemetryRetentionDays: 0 }));
    const token = await p.login();
    const api: Api = { p, token };
    const device = await newDevice(api, 'meter', {});
    const gateway = await newDevice(api, 'gw', { gateway: true });
    const base = `/api/plugins/telemetry/DEVICE/${device.id.id}`;
    const store = async () => (await okJson<PlatformStats>(p.http('/api/sandboard/stats', { token }))).store!;
    await okEmpty(
      p.http(`${base}/SERVER_SCOPE`, { method: 'POST', token, json: { site: 'north', floor: 3 } }),
    );

    // 1. telemetry up to 80%: the warning shows, nothing is dropped yet
    let ts = T0;
    const batch = () =>
      Array.from({ length: 150 }, () => ({ ts: ts++, values: { reading: `r-${ts}-${'x'.repeat(40)}` } }));
    let s: Store = await store();
    expect(s).toMatchObject({ budgetBytes: BUDGET, warning: false, full: false, prunedDatapoints: 0 });
    while (!s.warning) {
      await okEmpty(p.http(`${base}/timeseries/ANY`, { method: 'POST', token, json: batch() }));
      s = await store();
    }
    expect(s.usedBytes).toBeGreaterThanOrEqual(BUDGET * 0.8);
    expect(s.prunedDatapoints).toBe(0);
    const firstHistory = await timeseries(api, device.id.id, {
      keys: 'reading',
      startTs: T0,
      endTs: T0 + 5,
      limit: 10,
    });
    expect(firstHistory.reading).toHaveLength(5);

    // 2. on to 90%: the oldest telemetry goes, the newest, the attributes and the devices stay
    while (s.prunedDatapoints === 0) {
      await okEmpty(p.http(`${base}/timeseries/ANY`, { method: 'POST', token, json: batch() }));
      s = await store();
    }
    expect(s.usedBytes).toBeLessThan(BUDGET * 0.9);
    expect(s.lastPrunedAt).toEqual(expect.any(Number));
    const oldest = await timeseries(api, device.id.id, {
      keys: 'reading',
      startTs: T0,
      endTs: T0 + 5,
      limit: 10,
    });
    expect(oldest.reading ?? []).toEqual([]);
    const newest = await timeseries(api, device.id.id, {
      keys: 'reading',
      startTs: ts - 5,
      endTs: ts,
      limit: 10,
    });
    expect(newest.reading).toHaveLength(5);
    const attrs = await okJson<{ key: string; value: unknown }[]>(
      p.http(`${base}/values/attributes/SERVER_SCOPE`, { token }),
    );
    expect(attrs.map((a) => [a.key, a.value]).sort()).toEqual([
      ['floor', 3],
      ['site', 'north'],
    ]);
    expect((await p.http(`/api/device/${gateway.id.id}`, { token })).status).toBe(200);

    // 3. attributes cannot be dropped: filled to the budget, every growing write is refused, clearly
    let key = 0;
    for (;;) {
      const res = await p.http(`${base}/SERVER_SCOPE`, {
        method: 'POST',
        token,
        json: { [`blob${key++}`]: 'b'.repeat(60_000) },
      });
      if (res.status === 507) {
        await expectTbError(res, 507, 2, /store is full/);
        break;
      }
      expect(res.status).toBe(200);
      expect(key).toBeLessThan(100);
    }
    s = await store();
    expect(s).toMatchObject({ full: true, warning: true });
    await expectTbError(
      await p.http(`${base}/timeseries/ANY`, { method: 'POST', token, json: { reading: 'one more' } }),
      507,
      2,
      /SANDBOARD_STORE_BUDGET_MB/,
    );
    await expectTbError(
      await p.http('/api/device', { method: 'POST', token, json: { name: 'one too many' } }),
      507,
      2,
    );
    // new assets, relations and alarms grow the store too
    await expectTbError(
      await p.http('/api/asset', { method: 'POST', token, json: { name: 'one asset too many' } }),
      507,
      2,
    );
    const deviceRef = { entityType: 'DEVICE', id: device.id.id };
    await expectTbError(
      await p.http('/api/relation', {
        method: 'POST',
        token,
        json: { from: { entityType: 'DEVICE', id: gateway.id.id }, to: deviceRef, type: 'Feeds' },
      }),
      507,
      2,
    );
    await expectTbError(
      await p.http('/api/alarm', {
        method: 'POST',
        token,
        json: { type: 'Full', severity: 'MAJOR', originator: deviceRef },
      }),
      507,
      2,
    );
    const v5 = await connect(p.urls.mqtt, device.accessToken, 5);
    const refused = await expectRefused(v5, 5, 'v1/devices/me/telemetry', { reading: 1 }, QUOTA_EXCEEDED);
    expect(refused.reasonString).toMatch(/store is full/);
    const v3 = await connect(p.urls.mqtt, device.accessToken, 4);
    await expectRefused(v3, 4, 'v1/devices/me/attributes', { a: 1 }, QUOTA_EXCEEDED);
    await expectTbError(
      await p.http(`/api/v1/${device.accessToken}/telemetry`, {
        method: 'POST',
        json: { reading: 'over HTTP' },
      }),
      507,
      2,
      /store is full/,
    );
    const gw = await connect(p.urls.mqtt, gateway.accessToken, 5);
    await expectRefused(gw, 5, 'v1/gateway/connect', { device: 'new sensor' }, QUOTA_EXCEEDED);
    // reads and deletes still work, and the platform still serves
    expect((await p.http(`/api/device/${device.id.id}`, { token })).status).toBe(200);

    // 4. deleting the attributes makes room again
    const keys = Array.from({ length: key }, (_, i) => `blob${i}`).join(',');
    await okEmpty(p.http(`${base}/SERVER_SCOPE?keys=${keys}`, { method: 'DELETE', token }));
    expect((await store()).full).toBe(false);
    expect(await publish(v5, 'v1/devices/me/telemetry', { reading: 'after' })).toEqual({ code: 0 });
  });

  it('takes no budget when it is 0', async () => {
    const p = withLoginPair(await startTestPlatform({ storeBudgetBytes: 0 }));
    const token = await p.login();
    const s = (await okJson<PlatformStats>(p.http('/api/sandboard/stats', { token }))).store!;
    expect(s).toMatchObject({ budgetBytes: 0, warning: false, full: false });
    expect(s.usedBytes).toBeGreaterThan(0);
  });
});

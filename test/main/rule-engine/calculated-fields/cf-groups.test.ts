/**
 * A device's formulas and arithmetic scripts over the same arguments are computed together and leave as one
 * write (cf-engine's computeFormulas); a publish one of them can't compute that way (a text argument, a
 * division by zero) computes each field on its own, with the same results and failures as before.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, connect, publishOk } from '../../transport/mqtt/mqtt-kit.ts';
import { okJson, useSharedPlatform, type ApiPlatform } from '../../api/api-kit.ts';

interface Ref {
  entityType: string;
  id: string;
}

describe('calculated fields of one group', () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  afterEach(closeAll);

  it('leave as one write per publish, each publish the same as the fields computed one by one', async () => {
    p = platform();
    const token = await p.login();
    const post = <T>(path: string, json: unknown) => okJson<T>(p.http(path, { method: 'POST', token, json }));
    const accessToken = `cf-group-${Date.now()}`;
    const device = await post<{ id: Ref }>(`/api/device?accessToken=${accessToken}`, {
      name: `CF group ${Date.now()}`,
    });
    const immediate = { type: 'IMMEDIATE', saveTimeSeries: true, saveLatest: true, sendWsUpdate: true };
    const args = {
      t: { refEntityKey: { key: 't', type: 'TS_LATEST' } },
      h: { refEntityKey: { key: 'h', type: 'TS_LATEST' } },
    };
    const field = (name: string, configuration: Record<string, unknown>) =>
      post('/api/calculatedField', {
        entityId: device.id,
        type: configuration.type,
        name,
        configuration: { arguments: args, ...configuration },
      });
    await field('Ratio', {
      type: 'SIMPLE',
      expression: 't / h',
      output: { name: 'ratio', type: 'TIME_SERIES', decimalsByDefault: 2, strategy: immediate },
    });
    await field('Diff', {
      type: 'SCRIPT',
      expression: 'return {"diff": t - h, "half": t / 2};',
      output: { type: 'TIME_SERIES', strategy: immediate },
    });
    await field('Sum', {
      type: 'SIMPLE',
      expression: 't + h',
      output: { name: 'sum', type: 'TIME_SERIES', strategy: immediate },
    });
    const writes: { ts: number; values: Record<string, unknown> }[] = [];
    const onTs = (e: { deviceId: string; entries: { ts: number; values: Record<string, unknown> }[] }) => {
      if (e.deviceId === device.id.id)
        for (const x of e.entries) if ('sum' in x.values || 'diff' in x.values) writes.push(x);
    };
    p.services.ctx.events.on('telemetry', onTs);
    try {
      const client = await connect(p.urls.mqtt, accessToken, 4);
      await publishOk(client, 'v1/devices/me/telemetry', { ts: 1000, values: { t: 10, h: 3 } });
      await p.calculatedFields.settled();
      // a text argument: the script goes to the sandbox, the formulas read it as a number
      await publishOk(client, 'v1/devices/me/telemetry', { ts: 2000, values: { t: '4' } });
      await p.calculatedFields.settled();
      // a division by zero fails the ratio alone
      await publishOk(client, 'v1/devices/me/telemetry', { ts: 3000, values: { t: 5, h: 0 } });
      await p.calculatedFields.settled();
      await publishOk(client, 'v1/devices/me/telemetry', { ts: 4000, values: { t: -0, h: 2 } });
      await p.calculatedFields.settled();
      expect(writes).toEqual([
        { ts: 1000, values: { ratio: 3.33, diff: 7, half: 5, sum: 13 } },
        { ts: 2000, values: { ratio: 1.33, diff: 1, half: 2, sum: 7 } },
        { ts: 3000, values: { diff: 5, half: 2.5, sum: 5 } },
        { ts: 4000, values: { ratio: 0, diff: -2, half: 0, sum: 2 } },
      ]);
      expect(Object.is(writes[3]!.values.half, 0)).toBe(true);
    } finally {
      p.services.ctx.events.off('telemetry', onTs);
    }
  });
});

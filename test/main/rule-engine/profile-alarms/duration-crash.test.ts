/**
 * A DURATION rule across `kill -9`: `sandboard serve` runs as a child, a device reports a temperature over
 * the threshold (PUBACK: its rule's progress is on disk), the server is SIGKILLed and started again on the
 * same data directory, and the next reading, past the duration, raises the alarm. A device that starts
 * reporting only after the restart, at the same times, has no alarm: the duration counted is the one that
 * began before the kill.
 */
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { alarm, duration, numeric, profileWithAlarms, rule } from '../../../fixtures/alarm-rules.ts';
import { serveLogin, serveRest, startServe, type ServeProcess } from '../../../helpers/serve-process.ts';
import { tempDir } from '../../../helpers/temp-dir.ts';
import { closeAll, connect, publishOk } from '../../transport/mqtt/mqtt-kit.ts';

const FREE_PORTS = ['--http-port', '0', '--mqtt-port', '0', '--analytics-port', '0'];

const start = (dir: string) => startServe(['--data-dir', dir, ...FREE_PORTS]);

async function kill9(serve: ServeProcess): Promise<void> {
  const exited = once(serve.child, 'exit');
  serve.child.kill('SIGKILL');
  await exited;
}

describe('device profile node state under SIGKILL', () => {
  afterEach(closeAll);

  it('a duration that started before kill -9 is still counted after it', { timeout: 60_000 }, async () => {
    const dir = tempDir('sandboard-duration-crash-');
    let serve = await start(dir);
    let token = await serveLogin(serve);
    const profile = await serveRest<{ id: { id: string } }>(serve, '/api/deviceProfile', {
      method: 'POST',
      token,
      body: JSON.stringify(
        profileWithAlarms('Boilers', [
          alarm('Overheat', {
            CRITICAL: rule([numeric('temperature', 'GREATER', 50)], duration(10, 'SECONDS')),
          }),
        ]),
      ),
    });
    const ids: Record<string, string> = {};
    for (const name of ['boiler-before', 'boiler-after']) {
      const device = await serveRest<{ id: { id: string } }>(serve, `/api/device?accessToken=${name}`, {
        method: 'POST',
        token,
        body: JSON.stringify({ name, deviceProfileId: { entityType: 'DEVICE_PROFILE', id: profile.id.id } }),
      });
      ids[name] = device.id.id;
    }
    const t0 = Date.now() - 120_000;
    const reading = (ts: number, temperature: number) => ({ ts, values: { temperature } });

    let client = await connect(serve.urls.mqtt, 'boiler-before', 5);
    await publishOk(client, 'v1/devices/me/telemetry', reading(t0, 60));
    await publishOk(client, 'v1/devices/me/telemetry', reading(t0 + 4_000, 61));
    await kill9(serve);
    await closeAll();

    serve = await start(dir);
    token = await serveLogin(serve);
    const active = async (name: string) =>
      (
        await serveRest<{ data: { type: string; severity: string; startTs: number }[] }>(
          serve,
          `/api/alarm/DEVICE/${ids[name]}?pageSize=10&page=0&searchStatus=ACTIVE`,
          { token },
        )
      ).data;

    client = await connect(serve.urls.mqtt, 'boiler-before', 5);
    await publishOk(client, 'v1/devices/me/telemetry', reading(t0 + 8_000, 62));
    expect(await active('boiler-before')).toEqual([]);
    await publishOk(client, 'v1/devices/me/telemetry', reading(t0 + 10_500, 63));
    expect(await active('boiler-before')).toMatchObject([
      { type: 'Overheat', severity: 'CRITICAL', startTs: t0 + 10_500 },
    ]);

    const other = await connect(serve.urls.mqtt, 'boiler-after', 5);
    await publishOk(other, 'v1/devices/me/telemetry', reading(t0 + 8_000, 62));
    await publishOk(other, 'v1/devices/me/telemetry', reading(t0 + 10_500, 63));
    expect(await active('boiler-after')).toEqual([]);
  });
});

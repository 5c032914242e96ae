import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../../helpers/serve-process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

/**
 * `sandboard serve` killed with SIGKILL right after the last 2xx: an asset, its relation to a device,
 * the asset's telemetry and attributes, and an alarm (raised with propagation, acknowledged, commented,
 * raised again with a new severity) must all be there after the restart, exactly as acknowledged.
 */
const FREE_PORTS = ['--http-port', '0', '--mqtt-port', '0', '--analytics-port', '0'];

async function client(serve: ServeProcess) {
  const http = (path: string, init: { method?: string; json?: unknown; token?: string } = {}) =>
    fetch(`${serve.urls.http}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(init.token ? { 'x-authorization': `Bearer ${init.token}` } : {}),
      },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
  const ok = async <T>(res: Promise<Response>): Promise<T> => {
    const r = await res;
    const text = await r.text();
    expect(r.status, text).toBe(200);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  const { token } = await ok<{ token: string }>(
    http('/api/auth/login', {
      method: 'POST',
      json: { username: 'tenant@thingsboard.org', password: 'tenant' },
    }),
  );
  return { http, ok, token };
}

async function kill(serve: ServeProcess): Promise<void> {
  const exited = once(serve.child, 'exit');
  serve.child.kill('SIGKILL');
  await exited;
}

describe('assets, relations and alarms survive a kill -9', () => {
  it('keeps everything that was answered 200', async () => {
    const dataDir = tempDir();
    const first = await startServe(['--data-dir', dataDir, ...FREE_PORTS]);
    const a = await client(first);
    type Ref = { id: { entityType: string; id: string } };
    const asset = await a.ok<Ref>(
      a.http('/api/asset', { method: 'POST', token: a.token, json: { name: 'Plant', type: 'site' } }),
    );
    const device = await a.ok<Ref>(
      a.http('/api/device', { method: 'POST', token: a.token, json: { name: 'Press' } }),
    );
    await a.ok(
      a.http('/api/relation', {
        method: 'POST',
        token: a.token,
        json: { from: asset.id, to: device.id, type: 'Contains' },
      }),
    );
    await a.ok(
      a.http(`/api/plugins/telemetry/ASSET/${asset.id.id}/timeseries/ANY`, {
        method: 'POST',
        token: a.token,
        json: { ts: 1_000, values: { output: 7 } },
      }),
    );
    await a.ok(
      a.http(`/api/plugins/telemetry/ASSET/${asset.id.id}/attributes/SERVER_SCOPE`, {
        method: 'POST',
        token: a.token,
        json: { shifts: 3 },
      }),
    );
    const raise = (severity: string) =>
      a.ok<Ref & { status: string }>(
        a.http('/api/alarm', {
          method: 'POST',
          token: a.token,
          json: { type: 'Jam', severity, originator: device.id, propagate: true },
        }),
      );
    const alarm = await raise('MINOR');
    await a.ok(a.http(`/api/alarm/${alarm.id.id}/ack`, { method: 'POST', token: a.token }));
    await a.ok(
      a.http(`/api/alarm/${alarm.id.id}/comment`, {
        method: 'POST',
        token: a.token,
        json: { comment: { text: 'Belt replaced' } },
      }),
    );
    await raise('CRITICAL');
    await kill(first);

    const second = await startServe(['--data-dir', dataDir, ...FREE_PORTS]);
    const b = await client(second);
    const shown = await b.ok<{ data: { id: { id: string }; status: string; severity: string }[] }>(
      b.http(`/api/alarm/ASSET/${asset.id.id}?pageSize=10&page=0`, { token: b.token }),
    );
    expect(shown.data.map((x) => [x.id.id, x.status, x.severity])).toEqual([
      [alarm.id.id, 'ACTIVE_ACK', 'CRITICAL'],
    ]);
    const comments = await b.ok<{ data: { type: string; comment: { text: string } }[] }>(
      b.http(`/api/alarm/${alarm.id.id}/comment?pageSize=10&page=0&sortProperty=createdTime&sortOrder=ASC`, {
        token: b.token,
      }),
    );
    expect(comments.data.map((c) => [c.type, c.comment.text])).toEqual([
      ['SYSTEM', 'Alarm was acknowledged by user tenant@thingsboard.org'],
      ['OTHER', 'Belt replaced'],
    ]);
    expect(
      await b.ok(b.http(`/api/relations?fromId=${asset.id.id}&fromType=ASSET`, { token: b.token })),
    ).toEqual([
      { from: asset.id, to: device.id, type: 'Contains', typeGroup: 'COMMON', additionalInfo: null },
    ]);
    expect(
      await b.ok(b.http(`/api/plugins/telemetry/ASSET/${asset.id.id}/values/timeseries`, { token: b.token })),
    ).toEqual({ output: [{ ts: 1_000, value: '7' }] });
    const attrs = await b.ok<{ key: string; value: unknown }[]>(
      b.http(`/api/plugins/telemetry/ASSET/${asset.id.id}/values/attributes`, { token: b.token }),
    );
    expect(attrs.map(({ key, value }) => [key, value])).toEqual([['shifts', 3]]);
    await kill(second);
  });
});

import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { carriedTables } from '../../../main/platform/sandbox/sandbox-tables.ts';
import type { DurableDb } from '../../../main/store/durable-db.ts';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { closeAll, connect } from '../transport/mqtt/mqtt-kit.ts';

const UPLOAD = { 'content-type': 'application/octet-stream' };

async function ok<T>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** A set-up touching every kind of entity: customer, device with token, asset, relation, telemetry, attributes, dashboard. */
async function populate(p: TestPlatform, token: string, prefix: string) {
  const post = (path: string, json: unknown) => p.http(path, { method: 'POST', token, json });
  const customer = await ok<{ id: { id: string } }>(
    await post('/api/customer', { title: `${prefix} customer` }),
  );
  const device = await ok<{ id: { id: string } }>(
    await post('/api/device', { name: `${prefix} thermostat`, type: 'default' }),
  );
  const creds = await ok<{ credentialsId: string }>(
    await p.http(`/api/device/${device.id.id}/credentials`, { token }),
  );
  const asset = await ok<{ id: { id: string } }>(
    await post('/api/asset', { name: `${prefix} building`, type: 'building' }),
  );
  await ok(
    await post('/api/relation', {
      from: { entityType: 'ASSET', id: asset.id.id },
      to: { entityType: 'DEVICE', id: device.id.id },
      type: 'Contains',
      typeGroup: 'COMMON',
    }),
  );
  const url = `/api/plugins/telemetry/DEVICE/${device.id.id}`;
  const now = Date.now();
  await ok(
    await post(
      `${url}/timeseries/ANY`,
      [0, 1, 2, 3].map((i) => ({ ts: now - 60_000 * i, values: { temperature: 20 + i, on: i % 2 === 0 } })),
    ),
  );
  await ok(
    await post(`/api/plugins/telemetry/ASSET/${asset.id.id}/timeseries/ANY`, {
      ts: now,
      values: { occupancy: 7 },
    }),
  );
  await ok(await post(`${url}/attributes/SERVER_SCOPE`, { floor: 3 }));
  await ok(await post('/api/dashboard', { title: `${prefix} overview`, configuration: { widgets: {} } }));
  return {
    customer: customer.id.id,
    device: device.id.id,
    asset: asset.id.id,
    token: creds.credentialsId,
    now,
  };
}

/** Every carried table's rows, in key order, as the store holds them (devices without their local number). */
function snapshot(db: DurableDb): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const t of carriedTables(db, true)) {
    const cols = t.columns.map((c) => `"${c}"`).join(', ');
    out[t.name] = db.all(`SELECT ${cols} FROM "${t.name}" ORDER BY ${t.key.map((k) => `"${k}"`).join(', ')}`);
  }
  out.telemetry = db.all(
    `SELECT COALESCE(d.id, n.entity_id) AS entity, k.key, kv.ts, kv.t, kv.v FROM ts_kv kv JOIN ts_key k ON k.key_id = kv.key_id
     LEFT JOIN devices d ON d.num = kv.entity_num LEFT JOIN entity_nums n ON -n.num = kv.entity_num ORDER BY 1, 2, 3`,
  );
  out.latest = db.all(
    `SELECT COALESCE(d.id, n.entity_id) AS entity, k.key, kv.ts, kv.t, kv.v FROM ts_kv_latest kv JOIN ts_key k ON k.key_id = kv.key_id
     LEFT JOIN devices d ON d.num = kv.entity_num LEFT JOIN entity_nums n ON -n.num = kv.entity_num ORDER BY 1, 2`,
  );
  return out;
}

async function download(p: TestPlatform, token: string, query = 'history=true&includePasswords=true') {
  const res = await p.http(`/api/sandboard/sandbox/export?${query}`, { token });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-disposition')).toMatch(/attachment; filename="sandbox-.*\.sandbox\.jsonl"/);
  return res.text();
}

const upload = (p: TestPlatform, token: string, body: string | Uint8Array, query = '') =>
  p.http(`/api/sandboard/sandbox/import${query}`, { method: 'POST', token, headers: UPLOAD, body });

describe('sandbox export and import', () => {
  afterEach(closeAll);

  it('carries a whole set-up into a fresh instance, equal entity by entity, credentials and history included', async () => {
    const a = await startTestPlatform();
    const ta = await a.login();
    const made = await populate(a, ta, 'A');
    const file = await download(a, ta);
    const lines = file
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({
      format: 'sandboard-sandbox',
      version: 1,
      includes: { history: true, passwords: true },
    });
    expect(lines.at(-1)).toEqual({ end: true, lines: lines.length - 1 });
    const kinds = lines.flatMap((l) =>
      'thingsboard' in l ? [(l.thingsboard as { kind: string }).kind] : [],
    );
    expect(kinds).toEqual(expect.arrayContaining(['ruleChain', 'dashboard', 'deviceProfile', 'devicesCsv']));

    const b = await startTestPlatform();
    const tb = await b.login();
    const result = await ok<{ telemetryRows: number }>(
      await upload(b, tb, file, '?replaceAll=true&wait=true'),
    );
    expect(result.telemetryRows).toBe(9);
    expect(snapshot(b.db)).toEqual(snapshot(a.db));

    // the device's own token works against B, and B's REST shows A's history
    const sent = await fetch(`${b.urls.http}/api/v1/${made.token}/telemetry`, {
      method: 'POST',
      body: '{"temperature":30}',
      headers: { 'content-type': 'application/json' },
    });
    expect(sent.status).toBe(200);
    const tb2 = await b.login(); // A's tenant password came along
    const series = await ok<Record<string, { ts: number; value: string }[]>>(
      await b.http(
        `/api/plugins/telemetry/DEVICE/${made.device}/values/timeseries?keys=temperature&startTs=${made.now - 600_000}&endTs=${made.now + 1}&limit=10`,
        { token: tb2 },
      ),
    );
    expect(series.temperature!.map((p) => Number(p.value))).toEqual([20, 21, 22, 23]);
  });

  it("carries calculated fields' packed results as history and latest values", async () => {
    const a = await startTestPlatform();
    const ta = await a.login();
    const made = await populate(a, ta, 'P');
    const num = a.services.directory.telemetryNum('DEVICE', made.device);
    // what the calculated fields engine writes: entries of numbers only, stored one packed row each
    await a.services.telemetry.saveTimeseriesMany([
      {
        target: { id: made.device, num, entityType: 'DEVICE' },
        entries: [0, 1, 2].map((i) => ({ ts: made.now - 1000 * i, values: { cfA: i + 0.5, cfB: -i } })),
      },
    ]);
    expect(a.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM ts_pack')!.n).toBe(3);
    const read = async (p: TestPlatform, token: string, range: string) =>
      ok<Record<string, { ts: number; value: string }[]>>(
        await p.http(`/api/plugins/telemetry/DEVICE/${made.device}/values/timeseries?keys=cfA,cfB${range}`, {
          token,
        }),
      );
    const range = `&startTs=0&endTs=${made.now + 1}`;
    const history = await read(a, ta, range);
    expect(history.cfA!.map((x) => x.value)).toEqual(['0.5', '1.5', '2.5']);

    const b = await startTestPlatform();
    const tb = await b.login();
    const result = await ok<{ telemetryRows: number }>(
      await upload(b, tb, await download(a, ta), '?replaceAll=true&wait=true'),
    );
    expect(result.telemetryRows).toBe(9 + 6);
    const tb2 = await b.login();
    expect(await read(b, tb2, range)).toEqual(history);
    expect(await read(b, tb2, '')).toEqual(await read(a, ta, ''));
  });

  it('shows the plan for a non-empty instance and follows it: new, replaced, and conflicts renamed or kept', async () => {
    const a = await startTestPlatform();
    const ta = await a.login();
    await populate(a, ta, 'Shared');
    const file = await download(a, ta, 'history=false');

    const b = await startTestPlatform();
    const tb = await b.login();
    const own = await populate(b, tb, 'Shared'); // same names, other ids
    const plan = await ok<{
      tables: Record<string, { new: number; replace: number; conflict: number }>;
      items: { table: string; name: string; action: string; otherId?: string }[];
    }>(await upload(b, tb, file, '?dryRun=true'));
    expect(plan.tables.devices).toEqual({ new: 0, replace: 0, conflict: 1 });
    expect(plan.items).toContainEqual(
      expect.objectContaining({
        table: 'devices',
        name: 'Shared thermostat',
        action: 'conflict',
        otherId: own.device,
      }),
    );
    // users and the default profile are the same names under other ids in two fresh instances
    expect(plan.tables.users!.conflict).toBeGreaterThan(0);
    const before = snapshot(b.db);
    expect(before.devices).toHaveLength(1);

    await ok(await upload(b, tb, file, '?wait=true&onConflict=keep'));
    expect(b.db.all('SELECT name FROM devices ORDER BY name')).toEqual([{ name: 'Shared thermostat' }]);
    expect(b.db.get<{ id: string }>('SELECT id FROM devices')!.id).toBe(own.device);

    const renamed = await ok<{ renamed: number }>(await upload(b, tb, file, '?wait=true&onConflict=rename'));
    expect(renamed.renamed).toBeGreaterThan(0);
    expect(b.db.all('SELECT name FROM devices ORDER BY name')).toEqual([
      { name: 'Shared thermostat' },
      { name: 'Shared thermostat (imported)' },
    ]);

    // importing the same file again: every entity of it is now "replace" (same id)
    const again = await ok<{ tables: Record<string, { new: number; replace: number; conflict: number }> }>(
      await upload(b, tb, file, '?dryRun=true'),
    );
    expect(again.tables.devices).toEqual({ new: 0, replace: 1, conflict: 0 });
  });

  it('refuses a newer version, a malformed and a truncated file with a clear message, touching nothing', async () => {
    const a = await startTestPlatform();
    const token = await a.login();
    await populate(a, token, 'Kept');
    const file = await download(a, token);
    const before = snapshot(a.db);
    const lines = file.trim().split('\n');

    const newer = [JSON.stringify({ ...JSON.parse(lines[0]!), version: 3 }), ...lines.slice(1)].join('\n');
    const r1 = await upload(a, token, newer, '?replaceAll=true&wait=true');
    expect(r1.status).toBe(400);
    const e1 = (await r1.json()) as { message: string; errorCode: number };
    expect(e1.message).toMatch(
      /line 1: version: this file is sandbox format version 3, written by a newer Sandboard.*update Sandboard/,
    );
    expect(e1.errorCode).toBe(31);

    const truncated = file.slice(0, Math.floor(file.length * 0.6));
    const r2 = await upload(a, token, truncated, '?replaceAll=true&wait=true');
    expect(r2.status).toBe(400);
    expect(((await r2.json()) as { message: string }).message).toMatch(
      /not JSON \(is the file cut short\?\)|truncated/,
    );

    const bad = [
      lines[0],
      JSON.stringify({ table: 'devices', rows: [{ id: 'x', name: 5, nope: {} }] }),
      lines.at(-1),
    ].join('\n');
    const r3 = await upload(a, token, bad, '?replaceAll=true&wait=true');
    expect(r3.status).toBe(400);
    expect(((await r3.json()) as { message: string }).message).toContain(
      'line 2: rows[0].nope: must be a string, a number or null',
    );

    const dropped = [...lines.slice(0, 2), ...lines.slice(3)].join('\n');
    const r4 = await upload(a, token, dropped, '?replaceAll=true&wait=true');
    expect(r4.status).toBe(400);
    expect(((await r4.json()) as { message: string }).message).toMatch(/a line is missing/);

    const r5 = await a.http('/api/sandboard/sandbox/import', {
      method: 'POST',
      token,
      json: { format: 'x' },
    });
    expect(r5.status).toBe(415);
    expect(snapshot(a.db)).toEqual(before);
  });

  it('keeps the MQTT snippets on the server, bounded, and carries them in the sandbox file', async () => {
    const a = await startTestPlatform();
    const ta = await a.login();
    const snippet = {
      name: 'hot',
      deviceType: '',
      topic: 'v1/devices/me/telemetry',
      payload: '{"t":90}',
      qos: 1,
      retain: false,
    };
    const list = [snippet, { ...snippet, name: 'cold', payload: '{"t":-5}', qos: 0, csv: 't\n1' }];
    const put = (p: TestPlatform, token: string, json: unknown) =>
      p.http('/api/sandboard/mqtt/snippets', { method: 'PUT', token, json });
    expect(await ok(await put(a, ta, list))).toEqual(list);

    const tooMany = await put(
      a,
      ta,
      Array.from({ length: 501 }, (_, i) => ({ ...snippet, name: `s${i}` })),
    );
    expect(tooMany.status).toBe(400);
    expect(await tooMany.json()).toMatchObject({ status: 400, errorCode: 30, message: expect.any(String) });
    const tooLong = await put(a, ta, [{ ...snippet, payload: 'x'.repeat(65537) }]);
    expect(tooLong.status).toBe(400);
    expect((await put(a, ta, [{ ...snippet, qos: 3 }])).status).toBe(400);
    expect(await ok(await a.http('/api/sandboard/mqtt/snippets', { token: ta }))).toEqual(list);

    const b = await startTestPlatform();
    const tb = await b.login();
    expect(await ok(await b.http('/api/sandboard/mqtt/snippets', { token: tb }))).toEqual([]);
    await ok(
      await upload(b, tb, await download(a, ta, 'includePasswords=true'), '?replaceAll=true&wait=true'),
    );
    expect(await ok(await b.http('/api/sandboard/mqtt/snippets', { token: await b.login() }))).toEqual(list);

    // into an instance with snippets of its own: merged by name, never by position
    const c = await startTestPlatform();
    const tc = await c.login();
    const mine = { ...snippet, name: 'mine', payload: '{"mine":1}' };
    await ok(await put(c, tc, [{ ...snippet, payload: '{"t":1}' }, mine]));
    const file = await download(a, ta, 'history=false');
    const plan = await ok<{ tables: Record<string, unknown> }>(await upload(c, tc, file, '?dryRun=true'));
    expect(plan.tables.mqtt_snippets).toEqual({ new: 1, replace: 1, conflict: 0 });
    await ok(await upload(c, tc, file, '?wait=true'));
    expect(await ok(await c.http('/api/sandboard/mqtt/snippets', { token: tc }))).toEqual([
      snippet,
      mine,
      list[1],
    ]);
  });

  it('ends the MQTT sessions of devices an import removed or gave other credentials', async () => {
    const a = await startTestPlatform();
    const token = await a.login();
    const made = await populate(a, token, 'Wired');
    const file = await download(a, token, 'history=false&includePasswords=true');
    // the device's token changes after the export: importing the file brings the old one back
    const creds = await ok<Record<string, unknown>>(
      await a.http(`/api/device/${made.device}/credentials`, { token }),
    );
    await ok(
      await a.http('/api/device/credentials', {
        method: 'POST',
        token,
        json: { ...creds, credentialsId: 'wired-new-token' },
      }),
    );
    const changed = await connect(a.urls.mqtt, 'wired-new-token', 4);
    const extra = await ok<{ id: { id: string } }>(
      await a.http('/api/device?accessToken=wired-extra', { method: 'POST', token, json: { name: 'Extra' } }),
    );
    const removed = await connect(a.urls.mqtt, 'wired-extra', 4);

    const closed = (c: typeof changed) => new Promise<void>((resolve) => c.once('close', () => resolve()));
    const ended = Promise.all([closed(changed), closed(removed)]);
    await ok(await upload(a, token, file, '?wait=true&replaceAll=true'));
    await ended;
    expect(a.db.get('SELECT 1 FROM devices WHERE id = ?', [extra.id.id])).toBeUndefined();
    // the device connects again with the token the file gave it
    const again = await connect(a.urls.mqtt, made.token, 4);
    expect(again.connected).toBe(true);
  });

  it('answers MQTT and REST during a large import; a publish made meanwhile is acknowledged with it and kept', async () => {
    const a = await startTestPlatform();
    const token = await a.login();
    const made = await populate(a, token, 'Live');
    const profile = await ok<{ id: { id: string } }>(
      await a.http('/api/deviceProfileInfo/default', { token }),
    );
    const rows = 150_000;
    const ids = Array.from(
      { length: 100 },
      (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    );
    const lines = [
      JSON.stringify({
        format: 'sandboard-sandbox',
        version: 1,
        exportedAt: Date.now(),
        generator: 'test',
        includes: { history: true, passwords: false },
        counts: {},
      }),
      JSON.stringify({
        table: 'devices',
        rows: ids.map((id, i) => ({
          id,
          created_time: 1,
          name: `Bulk ${i}`,
          type: 'default',
          device_profile_id: profile.id.id,
        })),
      }),
    ];
    for (let i = 0; i < rows; i += 1000)
      lines.push(
        JSON.stringify({
          history: Array.from({ length: 1000 }, (_, k) => [
            ids[(i + k) % ids.length],
            'bulk',
            i + k + 1,
            'd',
            1,
          ]),
        }),
      );
    lines.push(JSON.stringify({ end: true, lines: lines.length }));
    const job = await ok<{ id: string }>(await upload(a, token, `${lines.join('\n')}\n`), 202);
    const bulkRows = () =>
      a.db.get<{ n: number }>(
        "SELECT COUNT(*) AS n FROM ts_kv WHERE key_id = (SELECT key_id FROM ts_key WHERE key = 'bulk')",
      )?.n ?? 0;

    // the platform answers while the import is applied: REST reads, an MQTT connect and publish
    const running = await ok<{ state: string }>(
      await a.http(`/api/sandboard/sandbox/import/${job.id}`, { token }),
    );
    const client = await connect(a.urls.mqtt, made.token, 4);
    const sentWhile = (
      await ok<{ state: string }>(await a.http(`/api/sandboard/sandbox/import/${job.id}`, { token }))
    ).state;
    await client.publishAsync('v1/devices/me/telemetry', JSON.stringify({ during: 42 }), { qos: 1 });
    // acknowledged only once the import is durable with it: never beside a part of the import
    // (a single write of the whole import would have answered neither before it ended)
    expect(sentWhile).toBe('running');
    expect(bulkRows()).toBe(rows);
    for (;;) {
      const state = await ok<{ state: string }>(
        await a.http(`/api/sandboard/sandbox/import/${job.id}`, { token }),
      );
      if (state.state !== 'running') break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(running.state).toBe('running');
    expect(bulkRows()).toBe(rows);
    const during = await ok<Record<string, { value: string }[]>>(
      await a.http(`/api/plugins/telemetry/DEVICE/${made.device}/values/timeseries?keys=during`, { token }),
    );
    expect(during.during?.[0]?.value).toBe('42');
  }, 60_000);

  it('bounds the upload with a 413', async () => {
    const a = await startTestPlatform({ sandboxImportMaxBytes: 1000 });
    const token = await a.login();
    const res = await upload(a, token, 'x'.repeat(5000), '?dryRun=true');
    expect(res.status).toBe(413);
    expect(((await res.json()) as { message: string }).message).toMatch(/more than the 1000 allowed/);
  });

  it('resets to the class start exactly, saying first what a reset would lose', async () => {
    const a = await startTestPlatform();
    const token = await a.login();
    await populate(a, token, 'Class');
    const saved = await ok<{ saved: boolean; savedCounts: Record<string, number> }>(
      await a.http('/api/sandboard/sandbox/classStart', { method: 'POST', token }),
    );
    expect(saved.saved).toBe(true);
    const atStart = snapshot(a.db);
    // the class plays: a device more, one deleted, telemetry
    await populate(a, token, 'Later');
    const status = await ok<{ savedCounts: Record<string, number>; currentCounts: Record<string, number> }>(
      await a.http('/api/sandboard/sandbox/classStart', { token }),
    );
    expect(status.currentCounts.devices).toBe(2);
    expect(status.savedCounts.devices).toBe(1);
    await ok(await a.http('/api/sandboard/sandbox/classStart/reset', { method: 'POST', token }));
    expect(snapshot(a.db)).toEqual(atStart);
    // the engine runs the restored chains: a device posts and its telemetry is saved
    const creds = a.db.get<{ credentials_id: string }>('SELECT credentials_id FROM device_credentials')!;
    const sent = await fetch(`${a.urls.http}/api/v1/${creds.credentials_id}/telemetry`, {
      method: 'POST',
      body: '{"x":1}',
      headers: { 'content-type': 'application/json' },
    });
    expect(sent.status).toBe(200);
    await expect
      .poll(
        () =>
          a.db.get<{ n: number }>(
            "SELECT COUNT(*) AS n FROM ts_kv_latest l JOIN ts_key k ON k.key_id = l.key_id WHERE k.key = 'x'",
          )!.n,
      )
      .toBe(1);
  });

  it('resets through the saved database image, and the class start is still there after a restart', async () => {
    const dataDir = tempDir();
    const a = await startTestPlatform({ dataDir });
    const token = await a.login();
    await populate(a, token, 'Class');
    await ok(await a.http('/api/sandboard/sandbox/classStart', { method: 'POST', token }));
    expect(existsSync(join(dataDir, 'class-start.sqlite'))).toBe(true);
    const atStart = snapshot(a.db);
    await populate(a, token, 'Later');
    expect(snapshot(a.db)).not.toEqual(atStart);
    await ok(await a.http('/api/sandboard/sandbox/classStart/reset', { method: 'POST', token }));
    expect(snapshot(a.db)).toEqual(atStart);
    await a.stop();
    const b = await startTestPlatform({ dataDir });
    expect(snapshot(b.db)).toEqual(atStart);
    // a class start saved without an image (an older version) is re-imported from its sandbox file
    rmSync(join(dataDir, 'class-start.sqlite'));
    const tokenB = await b.login();
    await populate(b, tokenB, 'Again');
    await ok(await b.http('/api/sandboard/sandbox/classStart/reset', { method: 'POST', token: tokenB }));
    expect(snapshot(b.db)).toEqual(atStart);
  });
});

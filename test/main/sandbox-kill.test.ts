import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FREE_PORTS, SANDBOARD_BIN, startServe, type ServeProcess } from '../helpers/serve-process.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const run = promisify(execFile);
const DEVICES = 2_000;
const HISTORY = 50_000;

async function login(s: ServeProcess): Promise<string> {
  const res = await fetch(`${s.urls.http}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'tenant@thingsboard.org', password: 'tenant' }),
  });
  return ((await res.json()) as { token: string }).token;
}

async function counts(s: ServeProcess, token: string) {
  const res = await fetch(`${s.urls.http}/api/sandboard/sandbox/classStart`, {
    headers: { 'x-authorization': `Bearer ${token}` },
  });
  const body = (await res.json()) as { currentCounts: Record<string, number> };
  return { devices: body.currentCounts.devices, history: body.currentCounts.history };
}

/** A large valid sandbox file: DEVICES devices (of the instance's default profile) and HISTORY telemetry rows. */
function bigSandbox(profileId: string): string {
  const lines: string[] = [];
  const header = {
    format: 'sandboard-sandbox',
    version: 1,
    exportedAt: Date.now(),
    generator: 'test',
    includes: { history: true, passwords: false },
    counts: {},
  };
  lines.push(JSON.stringify(header));
  const ids = Array.from(
    { length: DEVICES },
    (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  );
  for (let i = 0; i < DEVICES; i += 1000)
    lines.push(
      JSON.stringify({
        table: 'devices',
        rows: ids.slice(i, i + 1000).map((id, k) => ({
          id,
          created_time: 1,
          name: `Imported ${i + k}`,
          type: 'default',
          device_profile_id: profileId,
        })),
      }),
    );
  for (let i = 0; i < HISTORY; i += 1000)
    lines.push(
      JSON.stringify({
        history: Array.from({ length: 1000 }, (_, k) => [
          ids[(i + k) % DEVICES],
          'temperature',
          1_700_000_000_000 + i + k,
          'd',
          20.5,
        ]),
      }),
    );
  lines.push(JSON.stringify({ end: true, lines: lines.length }));
  return `${lines.join('\n')}\n`;
}

describe('a sandbox import killed with kill -9', () => {
  it('leaves the old state, or the whole new one, never a part: while uploading and while saving', async () => {
    const dataDir = tempDir();
    const args = ['--data-dir', dataDir, ...FREE_PORTS];
    let serve = await startServe(args);
    let token = await login(serve);
    const auth = { 'x-authorization': `Bearer ${token}` };
    const profile = (await (
      await fetch(`${serve.urls.http}/api/deviceProfileInfo/default`, { headers: auth })
    ).json()) as { id: { id: string } };
    await fetch(`${serve.urls.http}/api/device`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Old device', type: 'default' }),
    });
    const before = await counts(serve, token);
    expect(before.devices).toBe(1);
    const file = Buffer.from(bigSandbox(profile.id.id));

    // 1. killed halfway through the upload
    const url = new URL(`${serve.urls.http}/api/sandboard/sandbox/import?replaceAll=true`);
    const req = request(url, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/octet-stream', 'content-length': file.length },
    });
    req.on('error', () => undefined);
    req.write(file.subarray(0, file.length >> 1));
    await new Promise((r) => setTimeout(r, 300)); // the server is reading the first half
    serve.child.kill('SIGKILL');
    await once(serve.child, 'exit');
    serve = await startServe(args);
    token = await login(serve);
    expect(await counts(serve, token)).toEqual(before);

    // 2. killed as soon as the import is accepted: its one journal record is on its way to the disk
    const res = await fetch(`${serve.urls.http}/api/sandboard/sandbox/import?replaceAll=true`, {
      method: 'POST',
      headers: { 'x-authorization': `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      body: file,
    });
    expect(res.status).toBe(202);
    serve.child.kill('SIGKILL');
    await once(serve.child, 'exit');
    serve = await startServe(args);
    // the new state has no tenant user of the old (the file carries none): read the store offline then
    serve.child.kill('SIGKILL');
    await once(serve.child, 'exit');
    const out = join(tempDir(), 'after.sandbox.jsonl');
    await run(process.execPath, [
      SANDBOARD_BIN,
      'sandbox',
      'export',
      out,
      '--data-dir',
      dataDir,
      '--history',
    ]);
    const header = JSON.parse(readFileSync(out, 'utf8').split('\n')[0]!) as {
      counts: Record<string, number>;
    };
    const state = { devices: header.counts.devices, history: header.counts.history };
    expect([before, { devices: DEVICES, history: HISTORY }]).toContainEqual(state);
  }, 240_000);

  it('imports and exports offline with the command line, writing the ThingsBoard parts beside', async () => {
    const dataDir = tempDir();
    const out = tempDir();
    const serve = await startServe(['--data-dir', dataDir, ...FREE_PORTS]); // seeds the root chain and profiles
    serve.child.kill('SIGKILL');
    await once(serve.child, 'exit');
    const file = join(out, 's.sandbox.jsonl.gz');
    await run(process.execPath, [
      SANDBOARD_BIN,
      'sandbox',
      'export',
      file,
      '--data-dir',
      dataDir,
      '--thingsboard',
      join(out, 'tb'),
    ]);
    expect(readFileSync(file).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(existsSync(join(out, 'tb', 'devices.csv'))).toBe(true);
    expect(existsSync(join(out, 'tb', 'rule-chains', 'Root Rule Chain.json'))).toBe(true);
    const chain = JSON.parse(
      readFileSync(join(out, 'tb', 'rule-chains', 'Root Rule Chain.json'), 'utf8'),
    ) as { ruleChain: { name: string }; metadata: { nodes: unknown[] } };
    expect(chain.ruleChain.name).toBe('Root Rule Chain');
    expect(chain.metadata.nodes.length).toBeGreaterThan(0);

    const other = tempDir();
    const plan = await run(process.execPath, [
      SANDBOARD_BIN,
      'sandbox',
      'import',
      file,
      '--data-dir',
      other,
      '--dry-run',
    ]);
    expect(plan.stdout).toMatch(/rule_chains: \d+ new, 0 replaced, 0 conflicting/);
    const done = await run(process.execPath, [
      SANDBOARD_BIN,
      'sandbox',
      'import',
      file,
      '--data-dir',
      other,
      '--replace-all',
    ]);
    expect(done.stdout).toMatch(/Imported \d+ rows/);

    const newer = join(out, 'newer.sandbox.jsonl');
    writeFileSync(
      newer,
      `${JSON.stringify({ format: 'sandboard-sandbox', version: 9, exportedAt: 1, generator: 'x', includes: { history: false, passwords: false }, counts: {} })}\n`,
    );
    const refused = await run(process.execPath, [
      SANDBOARD_BIN,
      'sandbox',
      'import',
      newer,
      '--data-dir',
      other,
    ]).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/version 9, written by a newer Sandboard/);
  }, 240_000);
});

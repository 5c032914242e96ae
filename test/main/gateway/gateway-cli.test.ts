import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseGatewayArgs } from '../../../main/gateway/gateway-command.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { COMPAT_DIR, startGatewayPlatform, startTlsFront, type GatewayPlatform } from './gateway-kit.ts';

const BIN = fileURLToPath(new URL('../../../bin/sandboard.js', import.meta.url));

function run(args: string[]) {
  const child = spawn(process.execPath, [BIN, 'gateway', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines: string[] = [];
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      const m = /^sandboard gateway ready (\{.*\})$/.exec(line);
      if (m) resolve(JSON.parse(m[1]!) as Record<string, unknown>);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
  });
  ready.catch(() => undefined);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, ready, exited, lines, stderr: () => stderr };
}

/** The gateway's default rest.json against a platform, on a free port, with a data dir of its own. */
function defaultConfigArgs(platformUrl: string, token: string): string[] {
  const config = fileURLToPath(new URL('tb-gateway-default-rest.json', COMPAT_DIR));
  return [
    '--config',
    config,
    '--platform',
    platformUrl,
    '--token',
    token,
    '--port',
    '0',
    '--data-dir',
    tempDir(),
  ];
}

/** POSTs a reading to /my_devices of the gateway's default rest.json; the answer and what the platform stored. */
async function postReading(platform: GatewayPlatform, base: string, device: string, temp: number) {
  const res = await fetch(`${base}/my_devices`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sensorName: device, sensorType: 'cli', temp, hum: 50 }),
  });
  const latest = res.status === 200 ? await platform.latest(device, ['temperature']) : {};
  return { status: res.status, stored: latest.temperature?.[0]?.value };
}

describe('sandboard gateway', () => {
  it("runs the gateway's own rest.json against a platform, prints one ready line, stops on SIGTERM", async () => {
    const platform = await startGatewayPlatform();
    const token = await platform.gatewayToken('CLI gateway');
    const gw = run(defaultConfigArgs(platform.urls.mqtt, token));
    const ready = (await gw.ready) as {
      url: string;
      platform: string;
      endpoints: { method: string; url: string }[];
    };
    expect(ready.platform).toBe(platform.urls.mqtt);
    expect(ready.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.endpoints).toContainEqual({
      method: 'POST',
      url: `${ready.url}/my_devices`,
      security: 'anonymous',
    });
    expect(await postReading(platform, ready.url, 'CLI-1', 5.5)).toEqual({ status: 200, stored: 5.5 });
    gw.child.kill('SIGTERM');
    expect(await gw.exited).toBe(0);
    expect(gw.lines).toHaveLength(1);
    await expect(fetch(`${ready.url}/anon1?temp=1`)).rejects.toThrow();
  });

  it('refuses a bad rest.json naming each JSON path, and a bad token in words', async () => {
    const dir = tempDir();
    const bad = join(dir, 'rest.json');
    writeFileSync(
      bad,
      JSON.stringify({ server: { port: 'x' }, mapping: [{ endpoint: '/a', converter: { type: 'js' } }] }),
    );
    const refused = run(['--config', bad, '--token', 't']);
    expect(await refused.exited).toBe(1);
    expect(refused.stderr()).toContain(`sandboard: ${bad} is not a valid REST connector configuration:`);
    expect(refused.stderr()).toContain('server.port: must be an integer or a string');
    expect(refused.stderr()).toContain('mapping[0].converter.type: must be "json" or "custom"');

    const platform = await startGatewayPlatform();
    const config = fileURLToPath(new URL('tb-gateway-legacy-rest.json', COMPAT_DIR));
    const wrong = run([
      '--config',
      config,
      '--platform',
      platform.urls.mqtt,
      '--token',
      'nope',
      '--port',
      '0',
    ]);
    expect(await wrong.exited).toBe(1);
    expect(wrong.stderr()).toContain('refused the gateway token (bad user name or password)');

    const usage = run(['--config', config]);
    expect(await usage.exited).toBe(2);
    expect(usage.stderr()).toContain("--token is required (the gateway device's access token)");
  });

  it('connects over mqtts:// with --ca, and says what to do when the certificate is not trusted', async () => {
    const platform = await startGatewayPlatform();
    const token = await platform.gatewayToken('TLS gateway');
    const { url, caFile } = await startTlsFront(platform.urls.mqtt);
    const common = defaultConfigArgs(url, token);

    const untrusted = run(common);
    expect(await untrusted.exited).not.toBe(0);
    expect(untrusted.stderr()).toContain(
      `${url}: its TLS certificate is not trusted (self-signed); trust it with --ca FILE, or skip the check with --insecure`,
    );

    const gw = run([...common, '--ca', caFile]);
    const ready = (await gw.ready) as { url: string; platform: string };
    expect(ready.platform).toBe(url);
    expect(await postReading(platform, ready.url, 'TLS-1', 7.5)).toEqual({ status: 200, stored: 7.5 });
  });

  it('reads its arguments', () => {
    expect(
      parseGatewayArgs(['--config', 'r.json', '--token', 'T', '--port', '0', '--data-dir', '/d'], {}),
    ).toMatchObject({
      platformUrl: 'mqtt://127.0.0.1:1883',
      token: 'T',
      port: 0,
      dataDir: '/d',
      selfSigned: false,
    });
    expect(parseGatewayArgs(['--config', 'r.json', '--token', 'T', '--ca', '/etc/ca.pem'], {}).caPath).toBe(
      '/etc/ca.pem',
    );
    expect(parseGatewayArgs(['--config', 'r.json'], { SANDBOARD_GATEWAY_TOKEN: 'E' }).token).toBe('E');
    expect(() =>
      parseGatewayArgs(['--config', 'r.json', '--token', 'T', '--platform', 'http://x'], {}),
    ).toThrow("--platform must be mqtt://HOST:PORT or mqtts://HOST:PORT, got 'http://x'");
  });
});

import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';
import { loadRestConfig } from '../../../main/gateway/connectors/rest/config.ts';
import { GatewayRuntime } from '../../../main/gateway/gateway-runtime.ts';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { startTlsFront as startFront, type TlsFront } from '../../helpers/tls-front.ts';
import type { OutgoingLogEntry } from '../../../shared/schemas/rest-connector.ts';

/** The IoT Gateway's own rest.json files (test/fixtures/compat/README.md says where they come from). */
export const COMPAT_DIR = new URL('../../fixtures/compat/', import.meta.url);

/** A compat rest.json as text, with some strings replaced (ports of this test run). */
export function compatConfig(file: string, replace: Record<string, string> = {}): unknown {
  let text = readFileSync(new URL(file, COMPAT_DIR), 'utf8');
  for (const [from, to] of Object.entries(replace)) text = text.replaceAll(from, to);
  return JSON.parse(text) as unknown;
}

export interface GatewayPlatform extends TestPlatform {
  token: string;
  /** a gateway device (additionalInfo.gateway = true) made through the REST API; its access token */
  gatewayToken(name?: string): Promise<string>;
  device(name: string): Promise<{ id: { id: string }; name: string; type: string }>;
  /** latest telemetry values (typed) of a device */
  latest(name: string, keys: string[]): Promise<Record<string, { ts: number; value: unknown }[]>>;
  attributes(name: string, scope: 'CLIENT_SCOPE' | 'SHARED_SCOPE'): Promise<Record<string, unknown>>;
  setShared(name: string, values: Record<string, unknown>): Promise<void>;
  rpc(
    name: string,
    method: string,
    params: unknown,
    timeoutMs?: number,
  ): Promise<{ status: number; body: unknown }>;
}

export async function startGatewayPlatform(): Promise<GatewayPlatform> {
  const platform = await startTestPlatform();
  const token = await platform.login();
  const api = async (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const res = await platform.http(path, { ...init, token });
    if (res.status !== 200)
      throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`);
    const text = await res.text();
    return text ? (JSON.parse(text) as unknown) : undefined;
  };
  let n = 0;
  const device: GatewayPlatform['device'] = async (name) =>
    (await api(`/api/tenant/devices?deviceName=${encodeURIComponent(name)}`)) as Awaited<
      ReturnType<GatewayPlatform['device']>
    >;
  return {
    ...platform,
    token,
    async gatewayToken(name = `Gateway ${++n}`) {
      const created = (await api('/api/device', {
        method: 'POST',
        json: { name, additionalInfo: { gateway: true } },
      })) as { id: { id: string } };
      const creds = (await api(`/api/device/${created.id.id}/credentials`)) as { credentialsId: string };
      return creds.credentialsId;
    },
    device,
    async latest(name, keys) {
      const d = await device(name);
      return (await api(
        `/api/plugins/telemetry/DEVICE/${d.id.id}/values/timeseries?keys=${keys.join(',')}&useStrictDataTypes=true`,
      )) as Record<string, { ts: number; value: unknown }[]>;
    },
    async attributes(name, scope) {
      const d = await device(name);
      const list = (await api(`/api/plugins/telemetry/DEVICE/${d.id.id}/values/attributes/${scope}`)) as {
        key: string;
        value: unknown;
      }[];
      return Object.fromEntries(list.map((a) => [a.key, a.value]));
    },
    async setShared(name, values) {
      const d = await device(name);
      await api(`/api/plugins/telemetry/DEVICE/${d.id.id}/SHARED_SCOPE`, { method: 'POST', json: values });
    },
    async rpc(name, method, params, timeoutMs = 5000) {
      const d = await device(name);
      const res = await platform.http(`/api/rpc/twoway/${d.id.id}`, {
        method: 'POST',
        token,
        json: { method, params, timeout: timeoutMs },
      });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
    },
  };
}

export interface RunningGateway {
  runtime: GatewayRuntime;
  baseUrl: string;
  logs: string[];
  dataDir: string;
  /** a request to the connector */
  request(path: string, init?: RequestInit & { json?: unknown; auth?: [string, string] }): Promise<Response>;
}

/** A gateway runtime with the given rest.json on the test platform, stopped after the test. */
export async function startGateway(
  platform: GatewayPlatform,
  rawConfig: unknown,
  options: { port?: number; dataDir?: string; bodyLimitBytes?: number; token?: string } = {},
): Promise<RunningGateway> {
  const logs: string[] = [];
  const dataDir = options.dataDir ?? tempDir();
  const runtime = await GatewayRuntime.start({
    name: 'Test connector',
    platformUrl: platform.urls.mqtt,
    token: options.token ?? (await platform.gatewayToken()),
    config: loadRestConfig(rawConfig),
    dataDir,
    ...(options.port !== undefined ? { portOverride: options.port } : {}),
    ...(options.bodyLimitBytes !== undefined ? { bodyLimitBytes: options.bodyLimitBytes } : {}),
    log: (level, line) => logs.push(`${level}: ${line}`),
  });
  onTestFinished(() => runtime.stop());
  const baseUrl = runtime.connector.baseUrl!;
  return {
    runtime,
    baseUrl,
    logs,
    dataDir,
    request(path, init = {}) {
      const { json, auth, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (json !== undefined) headers.set('content-type', 'application/json');
      if (auth)
        headers.set('authorization', `Basic ${Buffer.from(`${auth[0]}:${auth[1]}`).toString('base64')}`);
      return fetch(`${baseUrl}${path}`, {
        ...rest,
        headers,
        body: json !== undefined ? JSON.stringify(json) : rest.body,
      });
    },
  };
}

export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface TargetServer {
  url: string;
  port: number;
  received: Received[];
  /** resolves with the next request that arrives after this call */
  next(): Promise<Received>;
}

/** A small HTTP server standing for the outgoing calls' target; answers with `answer` (default 200 {}). */
export async function startTarget(
  answer: (r: Received, res: ServerResponse) => void = (_r, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  },
  port = 0,
): Promise<TargetServer> {
  const received: Received[] = [];
  const waiters: ((r: Received) => void)[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      received.push(r);
      for (const w of waiters.splice(0)) w(r);
      answer(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    received,
    next() {
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}

/** A port nothing listens on (bound then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A free port to put into a config (bound then released). */
export const freePort = closedPort;

/** Resolves when the platform stores client attributes of a device that include `key`. */
export function clientAttributeStored(
  platform: GatewayPlatform,
  key: string,
): Promise<{ deviceId: string; values: Record<string, unknown> }> {
  return new Promise((resolve) => {
    const listener = (e: { deviceId: string; scope: string; values: Record<string, unknown> }) => {
      if (e.scope !== 'CLIENT_SCOPE' || !(key in e.values)) return;
      platform.services.ctx.events.off('attributes', listener);
      resolve(e);
    };
    platform.services.ctx.events.on('attributes', listener);
  });
}

/** Resolves with the next outgoing call (all its tries done) that matches. */
export function outgoingDone(
  gw: RunningGateway,
  match: (e: OutgoingLogEntry) => boolean = () => true,
): Promise<OutgoingLogEntry> {
  return new Promise((resolve) => {
    const listener = (e: OutgoingLogEntry) => {
      if (!match(e)) return;
      gw.runtime.connector.events.off('outgoing', listener);
      resolve(e);
    };
    gw.runtime.connector.events.on('outgoing', listener);
  });
}

/** The platform's MQTT port behind TLS (test/helpers/tls-front.ts), closed when the test finishes. */
export async function startTlsFront(mqttUrl: string): Promise<TlsFront> {
  const front = await startFront(mqttUrl);
  onTestFinished(() => {
    // connections still open (a running gateway) would hold close(); the test is over
    void front.close();
  });
  return front;
}

import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { configFromEnv, type PlatformConfig } from '../../../main/config.ts';
import { startPlatform, type Platform } from '../../../main/app/start-platform.ts';
import type { TestPlatform } from '../../helpers/platform.ts';

export const TENANT = { username: 'tenant@thingsboard.org', password: 'tenant' };
export const CUSTOMER = { username: 'customer@thingsboard.org', password: 'customer' };
export const NULL_UUID = '13814000-1dd2-11b2-8080-808080808080';

export type HttpInit = RequestInit & { json?: unknown; token?: string; apiKey?: string };

export interface ApiPlatform extends Platform {
  http(path: string, init?: HttpInit): Promise<Response>;
  login(username?: string, password?: string): Promise<string>;
  /** logs in and returns both tokens */
  loginPair(username?: string, password?: string): Promise<{ token: string; refreshToken: string }>;
}

function withClient(platform: Platform, stop: () => Promise<void>): ApiPlatform {
  const http: ApiPlatform['http'] = (path, init = {}) => {
    const { json, token, apiKey, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (json !== undefined) headers.set('content-type', 'application/json');
    if (token) headers.set('x-authorization', `Bearer ${token}`);
    if (apiKey) headers.set('x-authorization', `ApiKey ${apiKey}`);
    return fetch(`${platform.urls.http}${path}`, {
      ...rest,
      headers,
      body: json !== undefined ? JSON.stringify(json) : rest.body,
    });
  };
  const loginPair: ApiPlatform['loginPair'] = async (
    username = TENANT.username,
    password = TENANT.password,
  ) => {
    const res = await http('/api/auth/login', { method: 'POST', json: { username, password } });
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
    return (await res.json()) as { token: string; refreshToken: string };
  };
  const login: ApiPlatform['login'] = async (username, password) =>
    (await loginPair(username, password)).token;
  return { ...platform, stop, http, login, loginPair };
}

/** Adds loginPair to a platform from startTestPlatform (which is stopped by its own onTestFinished). */
export function withLoginPair(platform: TestPlatform): ApiPlatform {
  return withClient(platform, platform.stop);
}

/**
 * One real platform for a whole describe block (beforeAll/afterAll), on free ports with its own data dir.
 * Use it where tests do not interfere; startTestPlatform stays the tool for a platform per test.
 */
export function useSharedPlatform(overrides: Partial<PlatformConfig> = {}): () => ApiPlatform {
  let platform: ApiPlatform | undefined;
  let dataDir: string | undefined;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sandboard-api-test-'));
    const started = await startPlatform({
      ...configFromEnv({}),
      dataDir,
      httpPort: 0,
      mqttPort: 0,
      analyticsPort: 0,
      logLevel: 'silent',
      ...overrides,
    });
    let stopped = false;
    platform = withClient(started, async () => {
      if (stopped) return;
      stopped = true;
      await started.stop();
    });
  });
  afterAll(async () => {
    await platform?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  return () => {
    if (!platform) throw new Error('shared platform not started');
    return platform;
  };
}

export interface TbError {
  status: number;
  message: string;
  errorCode: number;
  timestamp: number;
}

/** Asserts ThingsBoard's error body {status, message, errorCode, timestamp} and returns it. */
export async function expectTbError(
  res: Response,
  status: number,
  errorCode: number,
  message?: RegExp | string,
): Promise<TbError> {
  const text = await res.text();
  expect(res.status, `${res.url} answered ${res.status}: ${text}`).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(text) as TbError;
  expect(Object.keys(body).sort()).toEqual(['errorCode', 'message', 'status', 'timestamp']);
  expect(body.status).toBe(status);
  expect(body.errorCode, body.message).toBe(errorCode);
  expect(typeof body.message).toBe('string');
  expect(body.message.length).toBeGreaterThan(0);
  expect(Math.abs(Date.now() - body.timestamp)).toBeLessThan(60_000);
  if (message !== undefined) {
    if (typeof message === 'string') expect(body.message).toContain(message);
    else expect(body.message).toMatch(message);
  }
  return body;
}

/** Asserts the status (showing the body when it differs) and returns the parsed JSON body. */
export async function okJson<T = unknown>(res: Response | Promise<Response>, status = 200): Promise<T> {
  const r = await res;
  const text = await r.text();
  expect(r.status, `${r.url} answered ${r.status}: ${text}`).toBe(status);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** Asserts a 200 whose body is empty (deletes, attribute and telemetry writes). */
export async function okEmpty(res: Response | Promise<Response>): Promise<void> {
  const r = await res;
  const text = await r.text();
  expect(r.status, `${r.url} answered ${r.status}: ${text}`).toBe(200);
  expect(text).toBe('');
}

export interface JwtParts {
  header: Record<string, unknown>;
  payload: Record<string, unknown> & { iat: number; exp: number };
}

export function decodeJwt(token: string): JwtParts {
  const [header, payload] = token.split('.');
  const part = (s: string | undefined) =>
    JSON.parse(Buffer.from(s ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
  return { header: part(header), payload: part(payload) as JwtParts['payload'] };
}

export interface EntityRef {
  entityType: string;
  id: string;
}

export interface DeviceJson {
  id: EntityRef;
  createdTime: number;
  tenantId: EntityRef;
  customerId: EntityRef;
  name: string;
  type: string;
  label: string | null;
  deviceProfileId: EntityRef;
  additionalInfo: Record<string, unknown>;
}

export interface PageJson<T> {
  data: T[];
  totalPages: number;
  totalElements: number;
  hasNext: boolean;
}

export async function createDevice(
  p: ApiPlatform,
  token: string,
  body: Record<string, unknown>,
  accessToken?: string,
): Promise<DeviceJson> {
  const query = accessToken === undefined ? '' : `?accessToken=${encodeURIComponent(accessToken)}`;
  return okJson<DeviceJson>(p.http(`/api/device${query}`, { method: 'POST', token, json: body }));
}

export async function createCustomer(p: ApiPlatform, token: string, title: string): Promise<string> {
  const c = await okJson<{ id: EntityRef }>(
    p.http('/api/customer', { method: 'POST', token, json: { title } }),
  );
  return c.id.id;
}

/** A raw HTTP/1.1 request with full control of the headers (fetch forbids Host, Cookie, ...). */
export function rawRequest(
  baseUrl: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Resolves once Date.now() has passed the given epoch milliseconds (a computed wait, no polling loop). */
export async function waitUntilPast(epochMs: number): Promise<void> {
  const remaining = epochMs - Date.now() + 5;
  if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
  while (Date.now() <= epochMs) await new Promise((resolve) => setTimeout(resolve, 5));
}

import { onTestFinished } from 'vitest';
import { configFromEnv, type PlatformConfig } from '../../main/config.ts';
import { startPlatform, type Platform } from '../../main/app/start-platform.ts';
import { tempDir } from './temp-dir.ts';

export interface TestPlatform extends Platform {
  /** fetch against the platform's HTTP base URL */
  http(
    path: string,
    init?: RequestInit & { json?: unknown; token?: string; apiKey?: string },
  ): Promise<Response>;
  /** logs in and returns the access token */
  login(username?: string, password?: string): Promise<string>;
}

/** Starts the real platform in-process on free ports with a fresh data dir; stopped after the test. */
export async function startTestPlatform(overrides: Partial<PlatformConfig> = {}): Promise<TestPlatform> {
  const config: PlatformConfig = {
    ...configFromEnv({}),
    dataDir: tempDir(),
    httpPort: 0,
    mqttPort: 0,
    analyticsPort: 0,
    logLevel: 'silent',
    ...overrides,
  };
  const platform = await startPlatform(config);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await platform.stop();
  };
  onTestFinished(stop);
  const http: TestPlatform['http'] = (path, init = {}) => {
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
  const login: TestPlatform['login'] = async (username = 'tenant@thingsboard.org', password = 'tenant') => {
    const res = await http('/api/auth/login', { method: 'POST', json: { username, password } });
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { token: string }).token;
  };
  return { ...platform, stop, http, login };
}

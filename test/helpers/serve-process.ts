import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';

export const SANDBOARD_BIN = fileURLToPath(new URL('../../bin/sandboard.js', import.meta.url));

export interface ServeProcess {
  child: ChildProcess;
  urls: { http: string; mqtt: string; analytics: string; dataDir: string };
  stdoutLines: string[];
  stderr: () => string;
}

export type ServeUrls = ServeProcess['urls'];

/**
 * Resolves the URLs of the `sandboard ready {...}` line on a child's stdout (the process may be
 * `sandboard serve` itself or one that runs it, such as `npm start`), collecting every stdout line in
 * `lines`; rejects when the child exits before it.
 */
export function readyLine(
  child: ChildProcess,
  stderr: () => string,
  lines: string[] = [],
): Promise<ServeUrls> {
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      const m = /^sandboard ready (\{.*\})$/.exec(line);
      if (m) resolve(JSON.parse(m[1]!) as ServeUrls);
    });
    child.once('exit', (code, signal) =>
      reject(
        new Error(`${child.spawnargs.join(' ')} exited with ${code ?? signal} before ready: ${stderr()}`),
      ),
    );
  });
}

/** `serve` arguments for free ports (the ready line tells which). */
export const FREE_PORTS = ['--http-port', '0', '--mqtt-port', '0', '--analytics-port', '0'];

/** Runs `sandboard serve` as a real child process and resolves on its ready line. */
export async function startServe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [SANDBOARD_BIN, 'serve', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const stdoutLines: string[] = [];
  const urls = await readyLine(child, () => stderr, stdoutLines);
  return { child, urls, stdoutLines, stderr: () => stderr };
}

/** Runs `sandboard serve` expecting it to fail; returns its exit code and stderr. */
export async function runServeExpectingExit(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [SANDBOARD_BIN, 'serve', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr };
}

/** A REST call to a served platform: the JSON answer of a 200 (undefined for an empty body), else throws. */
export async function serveRest<T>(
  serve: ServeProcess,
  path: string,
  init: RequestInit & { token?: string } = {},
): Promise<T> {
  const headers = new Headers(init.headers);
  if (init.body) headers.set('content-type', 'application/json');
  if (init.token) headers.set('x-authorization', `Bearer ${init.token}`);
  const res = await fetch(`${serve.urls.http}${path}`, { ...init, headers });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text}`);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** Logs in to a served platform as the demo tenant administrator; returns the access token. */
export async function serveLogin(serve: ServeProcess): Promise<string> {
  const body = JSON.stringify({ username: 'tenant@thingsboard.org', password: 'tenant' });
  return (await serveRest<{ token: string }>(serve, '/api/auth/login', { method: 'POST', body })).token;
}

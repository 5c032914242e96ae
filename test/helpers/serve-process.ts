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
  const lines = createInterface({ input: child.stdout! });
  const ready = new Promise<ServeProcess['urls']>((resolve, reject) => {
    lines.on('line', (line) => {
      stdoutLines.push(line);
      const m = /^sandboard ready (\{.*\})$/.exec(line);
      if (m) resolve(JSON.parse(m[1]!) as ServeProcess['urls']);
    });
    child.once('exit', (code) =>
      reject(new Error(`sandboard serve exited with ${code} before ready: ${stderr}`)),
    );
  });
  const urls = await ready;
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

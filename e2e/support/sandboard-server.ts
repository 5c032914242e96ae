import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/sandboard.js', import.meta.url));
const READY_TIMEOUT_MS = 30_000;

export interface SandboardUrls {
  http: string;
  mqtt: string;
  analytics: string;
  dataDir: string;
}

export interface SandboardServer {
  urls: SandboardUrls;
  /** what the process wrote to stderr so far (shown when a test fails) */
  stderr(): string;
  stop(): Promise<void>;
}

/** Runs `sandboard serve` on free ports with a fresh data dir and resolves on its ready line. */
export async function startSandboard(env: Record<string, string> = {}): Promise<SandboardServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandboard-e2e-'));
  const child: ChildProcess = spawn(
    process.execPath,
    [BIN, 'serve', '--data-dir', dataDir, '--http-port', '0', '--mqtt-port', '0', '--analytics-port', '0'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SANDBOARD_LOG_LEVEL: 'warn', ...env } },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout! });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const urls = await new Promise<SandboardUrls>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`sandboard serve was not ready within ${READY_TIMEOUT_MS} ms: ${stderr}`)),
        READY_TIMEOUT_MS,
      );
      lines.on('line', (line) => {
        const m = /^sandboard ready (\{.*\})$/.exec(line);
        if (!m) return;
        clearTimeout(timer);
        resolve(JSON.parse(m[1]!) as SandboardUrls);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`sandboard serve exited with ${code} before it was ready: ${stderr}`));
      });
    });
    return { urls, stderr: () => stderr, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

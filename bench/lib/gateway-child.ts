import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/sandboard.js', import.meta.url));

/** Starts `sandboard gateway` (the REST connector as a process of its own); resolves with its base URL. */
export async function startGatewayChild(
  dir: string,
  config: unknown,
  platformUrl: string,
  token: string,
): Promise<{ url: string; stop(): Promise<void> }> {
  const file = join(dir, 'rest.json');
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(
    process.execPath,
    [
      BIN,
      'gateway',
      '--config',
      file,
      '--platform',
      platformUrl,
      '--token',
      token,
      '--port',
      '0',
      '--data-dir',
      dir,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /^sandboard gateway ready (\{.*\})$/.exec(line);
      if (m) resolve((JSON.parse(m[1]!) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`sandboard gateway exited with ${code}: ${stderr}`)));
  });
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

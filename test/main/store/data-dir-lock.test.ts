// The data directory's lock with real processes: a live holder refuses a second one by its pid; a holder
// killed with -9 leaves nothing that locks the next start out; a PID file naming a live process does not
// count (the PID may have been reused).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DataDirLockedError, LOCK_FILE, lockDataDir } from '../../../main/store/data-dir-lock.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const LOCK_MODULE = fileURLToPath(new URL('../../../main/store/data-dir-lock.ts', import.meta.url));

/** A Node process that takes the lock (as `platform` does it) and holds it until killed. */
async function holder(dir: string, platform: NodeJS.Platform): Promise<ChildProcess> {
  const script = `
    const { lockDataDir } = await import(${JSON.stringify(LOCK_MODULE)});
    await lockDataDir(${JSON.stringify(dir)}, ${JSON.stringify(platform)});
    console.log('locked');
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((resolve, reject) => {
    lines.on('line', (line) => line === 'locked' && resolve());
    child.once('exit', (code) => reject(new Error(`the holder exited (${code}) before locking`)));
  });
  return child;
}

// Linux's abstract socket, and the socket file macOS uses (which works on Linux too).
const ways: NodeJS.Platform[] = process.platform === 'win32' ? ['win32'] : ['linux', 'darwin'];

describe.each(ways.filter((p) => p !== 'linux' || process.platform === 'linux'))(
  'the data directory lock (as on %s)',
  (platform) => {
    it('refuses a second process while the holder lives, naming its pid', async () => {
      const dir = tempDir();
      const child = await holder(dir, platform);
      const refused = lockDataDir(dir, platform);
      await expect(refused).rejects.toBeInstanceOf(DataDirLockedError);
      await expect(refused).rejects.toThrow(`in use by another Sandboard process (pid ${child.pid})`);
    });

    it('is free again once the holder is killed with -9', async () => {
      const dir = tempDir();
      const child = await holder(dir, platform);
      child.kill('SIGKILL');
      await once(child, 'exit');
      const lock = await lockDataDir(dir, platform);
      // and held now: a second taker in this process is refused too
      await expect(lockDataDir(dir, platform)).rejects.toThrow(`(pid ${process.pid})`);
      lock.release();
      (await lockDataDir(dir, platform)).release();
      if (platform === 'darwin') expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    });

    it('ignores an old PID file, even one naming a live process (PIDs are reused)', async () => {
      const dir = tempDir();
      writeFileSync(join(dir, LOCK_FILE), String(process.ppid));
      const lock = await lockDataDir(dir, platform);
      lock.release();
    });
  },
);

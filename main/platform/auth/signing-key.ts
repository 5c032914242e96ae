import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** The install's JWT signing key: 64 random bytes, created on first start, readable only by the owner. */
export function loadOrCreateSigningKey(dataDir: string): Buffer {
  const path = join(dataDir, 'jwt-signing.key');
  try {
    const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
    if (key.length >= 32) return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const key = randomBytes(64);
  const fd = openSync(path, 'w', 0o600);
  try {
    writeSync(fd, key.toString('base64'));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return key;
}

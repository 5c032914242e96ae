import { open } from 'node:fs/promises';

/** Writes a whole file and fsyncs it before resolving; the caller renames it into place. */
export async function writeSynced(path: string, data: string | Buffer, mode?: number): Promise<void> {
  const handle = await open(path, 'w', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Fsyncs a folder, so that the renames and deletions in it survive a crash. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // some file systems (Windows) cannot fsync a directory
  } finally {
    await handle.close();
  }
}

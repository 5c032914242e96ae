// One process per data directory. The lock is a listening socket the OS holds for the process: it goes
// when the process goes, however it ends (kill -9, a crash, Windows shutting down without before-quit),
// so no stale file can lock a user out and no reused PID can look like the holder.
//   Linux:   an abstract Unix socket (no file at all), named from the directory's real path
//   Windows: a named pipe, named likewise (Node creates it as the first and only instance)
//   macOS and other POSIX: a Unix socket file, DIR/sandboard.lock (in the temp dir for a long DIR path);
//            one left by a killed process refuses connections, and is replaced
// Whoever connects is told the holder's pid.
import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export class DataDirLockedError extends Error {
  readonly pid: number | null;
  constructor(dir: string, pid: number | null) {
    const holder = pid === null ? 'another Sandboard process' : `another Sandboard process (pid ${pid})`;
    super(`The data directory ${dir} is in use by ${holder}. Stop it or choose another --data-dir.`);
    this.pid = pid;
  }
}

export const LOCK_FILE = 'sandboard.lock';
/** sockaddr_un's path is 104 bytes on macOS (108 on Linux), its terminating NUL included */
const MAX_SOCKET_PATH_BYTES = 103;
const ASK_HOLDER_MS = 2_000;

/** Where the lock of `dir` (a real, absolute path) listens. */
export function lockAddress(dir: string, platform: NodeJS.Platform = process.platform): string {
  const key = platform === 'win32' ? dir.toLowerCase() : dir;
  const id = createHash('sha256').update(key).digest('hex').slice(0, 32);
  if (platform === 'win32') return `\\\\.\\pipe\\sandboard-lock-${id}`;
  if (platform === 'linux') return `\0sandboard-lock-${id}`;
  const inDir = join(dir, LOCK_FILE);
  return Buffer.byteLength(inDir) <= MAX_SOCKET_PATH_BYTES ? inDir : join(tmpdir(), `sandboard-${id}.lock`);
}

/** Listens on `address`; resolves null when someone else does (EADDRINUSE). */
function listen(address: string): Promise<Server | null> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.end(String(process.pid));
    });
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') resolve(null);
      else reject(err);
    });
    server.listen({ path: address, exclusive: true }, () => {
      server.unref();
      resolve(server);
    });
  });
}

/** Asks whoever listens on `address` for its pid: 'stale' when nobody does (a socket file left behind). */
function askHolder(address: string): Promise<number | null | 'stale'> {
  return new Promise((resolve) => {
    let text = '';
    let answered = false;
    const socket = connect({ path: address });
    const done = (result: number | null | 'stale') => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done(null), ASK_HOLDER_MS);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk.slice(0, 32)));
    socket.on('end', () => {
      const pid = Number.parseInt(text, 10);
      done(Number.isInteger(pid) && pid > 0 ? pid : null);
    });
    socket.on('error', (err: NodeJS.ErrnoException) =>
      done(err.code === 'ECONNREFUSED' || err.code === 'ENOENT' || err.code === 'ENOTSOCK' ? 'stale' : null),
    );
  });
}

/** Takes the data directory's lock for this process's lifetime, or throws DataDirLockedError. */
export async function lockDataDir(
  dir: string,
  platform: NodeJS.Platform = process.platform,
): Promise<{ release(): void }> {
  mkdirSync(dir, { recursive: true });
  const address = lockAddress(realpathSync(dir), platform);
  const fileBased = platform !== 'win32' && platform !== 'linux';
  for (let attempt = 0; attempt < 3; attempt++) {
    const server = await listen(address);
    if (server) {
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          server.close(); // removes a socket file too
        },
      };
    }
    const holder = await askHolder(address);
    if (holder !== 'stale') throw new DataDirLockedError(dir, holder);
    if (!fileBased) continue; // the holder was just going away
    try {
      unlinkSync(address);
    } catch {
      /* someone else replaced it */
    }
  }
  throw new Error(`Could not lock the data directory ${dir}`);
}

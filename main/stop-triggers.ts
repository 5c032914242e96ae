// When `npm start` or `npm run serve` should stop. npm passes SIGINT and SIGTERM to its script's process
// (package.json's `exec` makes that process Node rather than a shell that would swallow them), but passes
// SIGHUP to no one and dies of it. So besides its own signals, a process started by npm watches whoever
// started it: the parent's exit, or the closing of its stdin pipe or IPC channel, means "stop" too.
import { fstatSync } from 'node:fs';

export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';
export const STOP_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export type StopCause =
  | { kind: 'signal'; signal: StopSignal }
  | { kind: 'parent-exited'; pid: number }
  | { kind: 'stdin-closed' }
  | { kind: 'ipc-closed' };

export function describeStopCause(cause: StopCause): string {
  switch (cause.kind) {
    case 'signal':
      return cause.signal;
    case 'parent-exited':
      return `the process that started it (pid ${cause.pid}) exited`;
    case 'stdin-closed':
      return 'its standard input closed';
    case 'ipc-closed':
      return 'its IPC channel closed';
  }
}

/** What a child is sent for a cause: Ctrl+C stays SIGINT; anything else asks with SIGTERM. */
export function signalForChild(cause: StopCause): 'SIGINT' | 'SIGTERM' {
  return cause.kind === 'signal' && cause.signal === 'SIGINT' ? 'SIGINT' : 'SIGTERM';
}

/** Whether a process still runs (EPERM: it does, under another user). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the process that started this one has exited. POSIX hands an orphan to another parent, so a
 * new ppid says it; Windows keeps the old ppid, so there the process itself is looked for.
 */
function parentExited(startPpid: number): boolean {
  if (process.platform === 'win32') return !isRunning(startPpid);
  return process.ppid !== startPpid;
}

function stdinIsPipe(): boolean {
  try {
    const stat = fstatSync(0);
    return stat.isFIFO() || stat.isSocket();
  } catch {
    return false;
  }
}

/** How often the parent is looked for (a parent's exit is noticed within this time). */
const PARENT_POLL_MS = 500;

/**
 * Calls `onStop` for each stop signal, and (unless `withParent` is false) once when the parent process
 * exits, the stdin pipe closes (a terminal, /dev/null or a file is not watched) or the IPC channel closes.
 */
export function watchStopTriggers(onStop: (cause: StopCause) => void, withParent = true): void {
  for (const signal of STOP_SIGNALS) process.on(signal, () => onStop({ kind: 'signal', signal }));
  if (!withParent) return;

  let gone = false;
  const once = (cause: StopCause) => {
    if (gone) return;
    gone = true;
    onStop(cause);
  };

  const startPpid = process.ppid;
  setInterval(() => {
    if (parentExited(startPpid)) once({ kind: 'parent-exited', pid: startPpid });
  }, PARENT_POLL_MS).unref();

  if (stdinIsPipe()) {
    const closed = () => once({ kind: 'stdin-closed' });
    process.stdin.on('end', closed);
    process.stdin.on('error', closed);
    process.stdin.resume();
    process.stdin.unref?.();
  }

  if (process.channel) process.on('disconnect', () => once({ kind: 'ipc-closed' }));
}

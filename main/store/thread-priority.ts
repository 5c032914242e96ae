import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * The nice value of background threads: against the network thread (nice 0) on a shared core such a thread
 * gets about a tenth of it, yet it is not starved (a snapshot that never ends would let the journal grow).
 */
export const BACKGROUND_NICE = 10;

/**
 * Lowers the calling thread's CPU priority (Linux: setpriority() on a thread id affects that thread
 * only). A snapshot or a report replica then takes the CPU the network thread leaves idle, instead of
 * half of it on a 2-core machine. Elsewhere, or when not allowed, the thread keeps its priority.
 */
export function lowerThreadPriority(nice = BACKGROUND_NICE): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    // never raises it: a process started nicer than this stays so
    if (getPriority(tid) < nice) setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}

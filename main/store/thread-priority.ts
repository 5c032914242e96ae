import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** The nice value of background threads: the network thread (nice 0) gets a shared core when it wants one. */
export const BACKGROUND_NICE = 19;

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
    setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}

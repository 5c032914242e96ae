/**
 * CPU time of other processes, from Linux's /proc (null elsewhere): less sensitive to other load on the
 * machine than rates are, and it says which process or thread a request costs most in.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** user + system ms from the text of a /proc stat file: fields 14 and 15, in clock ticks (100 per second) */
function statCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU time (user + system, ms) a process has used so far. */
export function processCpuMs(pid: number | undefined): number | null {
  try {
    return statCpuMs(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** What a thread (or several) has spent so far, in ms: running, and runnable but waiting for a core. */
export interface ThreadTimes {
  cpuMs: number;
  /** from /proc/.../schedstat; NaN where the kernel keeps no scheduler statistics */
  waitMs: number;
}

/** waiting time (ms) from the text of a /proc schedstat file: its second field, in ns */
function schedstatWaitMs(pid: number, tid: string): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return Number.NaN;
  }
}

/**
 * What a process's threads have spent so far, summed by groupOf(thread name) (by the name itself, as
 * `top -H` shows them, by default).
 */
export function threadTimes(
  pid: number | undefined,
  groupOf: (thread: string) => string = (thread) => thread,
): Map<string, ThreadTimes> | null {
  try {
    const groups = new Map<string, ThreadTimes>();
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const group = groupOf(stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')));
      const sum = groups.get(group) ?? { cpuMs: 0, waitMs: 0 };
      sum.cpuMs += statCpuMs(stat);
      sum.waitMs += schedstatWaitMs(pid!, tid);
      groups.set(group, sum);
    }
    return groups;
  } catch {
    return null;
  }
}

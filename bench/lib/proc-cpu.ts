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

/** CPU time (ms) used so far by a process's threads, summed by thread name (as `top -H` shows them). */
export function threadCpuMs(pid: number | undefined): Map<string, number> | null {
  try {
    const byName = new Map<string, number>();
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      byName.set(name, (byName.get(name) ?? 0) + statCpuMs(stat));
    }
    return byName;
  } catch {
    return null;
  }
}

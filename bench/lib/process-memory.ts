import { readdirSync, readFileSync } from 'node:fs';

/** V8 reserves this much address space, or more, for each 32-bit WebAssembly memory (the rest is guard) */
const WASM_RESERVATION_BYTES = 8 * 2 ** 30;
const MB = 2 ** 20;

interface Mapping {
  start: bigint;
  end: bigint;
  perms: string;
  path: string;
  rssKB: number;
  anonymousKB: number;
}

function mappingsOf(pid: number): Mapping[] {
  const mappings: Mapping[] = [];
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      mappings.push({
        start: BigInt(`0x${head[1]}`),
        end: BigInt(`0x${head[2]}`),
        perms: head[3]!,
        path: head[4]!,
        rssKB: 0,
        anonymousKB: 0,
      });
      continue;
    }
    const field = /^(Rss|Anonymous):\s+(\d+) kB/.exec(line);
    const last = mappings.at(-1);
    if (field && last) last[field[1] === 'Rss' ? 'rssKB' : 'anonymousKB'] = Number(field[2]);
  }
  return mappings;
}

/** What a process's resident memory is made of, from /proc/PID/smaps, in MB. */
export interface ProcessMemory {
  rssMB: number;
  /** each WebAssembly memory's resident part (sql.js: one per database copy), largest first */
  wasmMB: number[];
  /** program code and other file-backed pages (node, its libraries) */
  fileMB: number;
  /** anonymous pages that are no WebAssembly memory: V8 heaps of all threads, malloc arenas, stacks */
  otherAnonymousMB: number;
  /** its threads by name, e.g. "node, 4 libuv-worker, snapshot-worker" */
  threads: string;
}

/** A process's threads, counted by name (a worker thread is named by its Worker's name option). */
function threadNames(pid: number): string {
  const count = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let name = '?';
    try {
      name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
    } catch {
      // the thread ended meanwhile
    }
    count.set(name, (count.get(name) ?? 0) + 1);
  }
  return [...count].map(([name, n]) => (n > 1 ? `${n} ${name}` : name)).join(', ');
}

/**
 * Reads a process's memory map. A WebAssembly memory is an anonymous read-write mapping followed, without
 * a gap, by its inaccessible rest: together at least 8 GiB of address space (what V8 reserves for each).
 */
export function processMemory(pid: number): ProcessMemory {
  const maps = mappingsOf(pid);
  const wasm: number[] = [];
  let fileKB = 0;
  let otherKB = 0;
  let rssKB = 0;
  maps.forEach((m, i) => {
    rssKB += m.rssKB;
    const next = maps[i + 1];
    const anonymous = m.path === '' || m.path.startsWith('[anon');
    if (
      anonymous &&
      m.perms.startsWith('rw') &&
      next?.start === m.end &&
      next.perms.startsWith('---') &&
      Number(next.end - m.start) >= WASM_RESERVATION_BYTES
    ) {
      wasm.push(m.rssKB / 1024);
    } else if (anonymous || m.path.startsWith('[')) otherKB += m.rssKB;
    else fileKB += m.rssKB;
  });
  return {
    rssMB: rssKB / 1024,
    wasmMB: wasm.sort((a, b) => b - a),
    fileMB: fileKB / 1024,
    otherAnonymousMB: otherKB / 1024,
    threads: threadNames(pid),
  };
}

export const mbOf = (bytes: number) => bytes / MB;

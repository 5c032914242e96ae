import { readdirSync, readFileSync } from 'node:fs';

/** V8 reserves this much address space, or more, for each 32-bit WebAssembly memory (the rest is guard) */
const WASM_RESERVATION_BYTES = 8 * 2 ** 30;
const MB = 2 ** 20;
/** a V8 heap's regular page (every isolate's; large objects get pages of their own size) */
const V8_PAGE_BYTES = 256 * 1024;
/** what a resizable ArrayBuffer of the patched sql.js file system reserves (its maxByteLength, 2 GiB) */
const SQLJS_FILE_RESERVATION_BYTES = 2 * 2 ** 30;
/** what glibc reserves for each malloc arena of a thread (HEAP_MAX_SIZE on 64-bit) */
const MALLOC_ARENA_BYTES = 64 * MB;

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
  /** otherAnonymousMB, told apart by the shape of each mapping */
  anonymous: {
    /** 256 KiB pages: the V8 heaps of all threads (without their large objects) */
    v8PagesMB: number;
    /** sql.js's in-memory database files (resizable buffers reserving 2 GiB each), one per database copy */
    sqljsFilesMB: number[];
    /** glibc's malloc arenas: the main one ([heap]) and the threads' (64 MiB reservations) */
    mallocMB: number;
    /** the rest: blocks of 1 MiB or more mapped on their own, V8's large objects, thread stacks */
    restMB: number;
  };
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
  const sqljsFiles: number[] = [];
  let fileKB = 0;
  let otherKB = 0;
  let rssKB = 0;
  let v8PagesKB = 0;
  let mallocKB = 0;
  maps.forEach((m, i) => {
    rssKB += m.rssKB;
    const next = maps[i + 1];
    const anonymous = m.path === '' || m.path.startsWith('[anon');
    // a mapping and the inaccessible rest of its reservation right after it: how much address space in all
    const reserved =
      next?.start === m.end && next.perms.startsWith('---')
        ? Number(next.end - m.start)
        : Number(m.end - m.start);
    if (anonymous && m.perms.startsWith('rw') && reserved >= WASM_RESERVATION_BYTES) {
      wasm.push(m.rssKB / 1024);
      return;
    }
    if (!anonymous && !m.path.startsWith('[')) {
      fileKB += m.rssKB;
      return;
    }
    otherKB += m.rssKB;
    if (
      m.path === '[heap]' ||
      (reserved === MALLOC_ARENA_BYTES && m.start % BigInt(MALLOC_ARENA_BYTES) === 0n)
    )
      mallocKB += m.rssKB;
    else if (Number(m.end - m.start) === V8_PAGE_BYTES) v8PagesKB += m.rssKB;
    else if (m.perms.startsWith('rw') && reserved >= SQLJS_FILE_RESERVATION_BYTES)
      sqljsFiles.push(m.rssKB / 1024);
  });
  const sqljsFilesMB = sqljsFiles.sort((a, b) => b - a);
  const known = v8PagesKB / 1024 + mallocKB / 1024 + sqljsFilesMB.reduce((a, b) => a + b, 0);
  return {
    rssMB: rssKB / 1024,
    wasmMB: wasm.sort((a, b) => b - a),
    fileMB: fileKB / 1024,
    otherAnonymousMB: otherKB / 1024,
    anonymous: {
      v8PagesMB: v8PagesKB / 1024,
      sqljsFilesMB,
      mallocMB: mallocKB / 1024,
      restMB: otherKB / 1024 - known,
    },
    threads: threadNames(pid),
  };
}

export const mbOf = (bytes: number) => bytes / MB;

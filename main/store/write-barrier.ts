import { crc32 } from 'node:zlib';
import type { JournalRecord } from './journal.ts';

/**
 * A write barrier: one long write (a sandbox import) applied over many event-loop turns, yet journaled as
 * ONE record, so a kill at any moment leaves it absent or whole. While it holds, the store's group stays
 * open: other writes still run at once inside it (their callbacks see the store as it is), but none is
 * acknowledged before the long write commits with them. If the long write fails, its statements are
 * rolled back and the others' are applied again, as the journal will hold them.
 */
export interface BarrierHost {
  /** the open group's statements (opens the group): the barrier's and the others', in order */
  openStatements(): unknown[][];
  exec(sql: string): void;
  /** runs one journaled statement again (after a rollback), without journaling it twice */
  rerun(row: unknown[]): void;
}

export class WriteBarrier {
  /** index in the group's statements where the barrier began */
  private readonly base: number;
  /** [from, to) ranges of the group's statements that are the barrier's own */
  private readonly own: [number, number][] = [];
  private from: number;
  private readonly released: Promise<void>;
  private release!: () => void;
  private readonly host: BarrierHost;

  constructor(host: BarrierHost) {
    this.host = host;
    this.base = host.openStatements().length;
    this.from = this.base;
    host.exec('SAVEPOINT barrier');
    this.released = new Promise((resolve) => (this.release = resolve));
  }

  /** Resolves once the barrier is lifted (committed into the group, or rolled back). */
  get done(): Promise<void> {
    return this.released;
  }

  /** Ends the barrier's turn: other writes may run until `resumed()`. */
  pause(): void {
    const to = this.host.openStatements().length;
    if (to > this.from) this.own.push([this.from, to]);
  }

  resumed(): void {
    this.from = this.host.openStatements().length;
  }

  /** Keeps everything: the group is committed as usual, the barrier's statements in it. */
  commit(): void {
    this.pause();
    this.host.exec('RELEASE barrier');
    this.release();
  }

  /** Drops the barrier's statements; those of other writes made meanwhile are applied again. */
  rollback(): void {
    this.pause();
    this.host.exec('ROLLBACK TO barrier');
    this.host.exec('RELEASE barrier');
    const statements = this.host.openStatements();
    const kept = statements.slice(0, this.base);
    let at = this.base;
    for (const [from, to] of [...this.own, [statements.length, statements.length] as const]) {
      for (let i = at; i < from; i++) {
        try {
          this.host.rerun(statements[i]!);
          kept.push(statements[i]!);
        } catch {
          // without the barrier's rows this statement fails: the journal keeps it out, as memory does
        }
      }
      at = to;
    }
    statements.length = 0;
    for (const row of kept) statements.push(row);
    this.release();
  }
}

/** Statements from which a record is framed over several turns rather than in one. */
export const FRAME_IN_TURNS_STATEMENTS = 2_000;
const STATEMENTS_PER_TURN = 100;
const HEADER_BYTES = 8;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Bytes of a frame's pieces: copied together within a turn, where one copy of the whole frame would not be. */
const PIECE_BYTES = 4 * 1024 * 1024;

/**
 * A journal frame ([u32 length][u32 crc32][JSON record], as encodeFrame makes it) built over several
 * event-loop turns, in pieces to append one after the other: a record of millions of values is hundreds of
 * milliseconds of JSON, and one buffer of tens of MB is a long copy, at once.
 */
export async function encodeFrameInTurns(record: JournalRecord): Promise<Buffer[]> {
  const pieces: Buffer[] = [];
  let parts: Buffer[] = [];
  let partBytes = 0;
  let length = 0;
  let sum = 0;
  const add = (text: string) => {
    const part = Buffer.from(text, 'utf8');
    parts.push(part);
    partBytes += part.length;
    length += part.length;
    sum = crc32(part, sum);
    if (partBytes >= PIECE_BYTES) {
      pieces.push(Buffer.concat(parts, partBytes));
      parts = [];
      partBytes = 0;
    }
  };
  add(`{"seq":${JSON.stringify(record.seq)},"q":${JSON.stringify(record.q)},"r":[`);
  const rows = record.r;
  for (let i = 0; i < rows.length; i += STATEMENTS_PER_TURN) {
    if (i > 0) await nextTurn();
    const json = JSON.stringify(rows.slice(i, i + STATEMENTS_PER_TURN));
    add((i > 0 ? ',' : '') + json.slice(1, -1));
  }
  add(']}');
  if (partBytes > 0) pieces.push(Buffer.concat(parts, partBytes));
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  header.writeUInt32LE(length, 0);
  header.writeUInt32LE(sum, 4);
  return [header, ...pieces];
}

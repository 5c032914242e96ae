import type { SandboxCell, SandboxTsRow } from '../../../shared/schemas/sandbox.ts';

const INITIAL = 1024;

/**
 * Telemetry rows read from a sandbox file, held in columns rather than as one array per row: entity ids,
 * keys and types as indexes into their distinct strings, timestamps and numeric values in typed arrays.
 * A million rows then make no million objects for the collector to trace while the import waits for
 * its commit (a major GC over them stalled the event loop past 50 ms). Rows come back out as tuples.
 */
export class TsRowColumns implements Iterable<SandboxTsRow> {
  private readonly strings: string[] = [];
  private readonly stringIndex = new Map<string, number>();
  private ids = new Uint32Array(INITIAL);
  private keys = new Uint32Array(INITIAL);
  private types = new Uint32Array(INITIAL);
  private times = new Float64Array(INITIAL);
  private numbers = new Float64Array(INITIAL);
  /** values that are not numbers (strings, null), by row */
  private readonly others = new Map<number, SandboxCell>();
  length = 0;

  private intern(s: string): number {
    let i = this.stringIndex.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      this.stringIndex.set(s, i);
    }
    return i;
  }

  private grow(): void {
    const size = this.ids.length * 2;
    const more = <A extends Uint32Array | Float64Array>(a: A, make: (n: number) => A): A => {
      const b = make(size);
      b.set(a);
      return b;
    };
    this.ids = more(this.ids, (n) => new Uint32Array(n));
    this.keys = more(this.keys, (n) => new Uint32Array(n));
    this.types = more(this.types, (n) => new Uint32Array(n));
    this.times = more(this.times, (n) => new Float64Array(n));
    this.numbers = more(this.numbers, (n) => new Float64Array(n));
  }

  push([id, key, ts, t, v]: SandboxTsRow): void {
    if (this.length === this.ids.length) this.grow();
    const i = this.length++;
    this.ids[i] = this.intern(id);
    this.keys[i] = this.intern(key);
    this.types[i] = this.intern(t);
    this.times[i] = ts;
    if (typeof v === 'number') this.numbers[i] = v;
    else this.others.set(i, v);
  }

  *[Symbol.iterator](): Iterator<SandboxTsRow> {
    const s = this.strings;
    for (let i = 0; i < this.length; i++) {
      const v = this.others.has(i) ? this.others.get(i)! : this.numbers[i]!;
      yield [s[this.ids[i]!]!, s[this.keys[i]!]!, this.times[i]!, s[this.types[i]!]!, v];
    }
  }
}

import {
  SANDBOX_FORMAT,
  SANDBOX_LIMITS,
  SANDBOX_RECORDINGS_VERSION,
  type SandboxHeader,
  type SandboxTsRow,
  type ThingsBoardPart,
} from '../../../shared/schemas/sandbox.ts';
import type { DurableDb } from '../../store/durable-db.ts';
import type { SandboxAttachment } from './sandbox-attachments.ts';
import { carriedTables, SECRET_COLUMNS } from './sandbox-tables.ts';
import { telemetryTables } from '../telemetry-packs.ts';

export interface SandboxExportOptions {
  history: boolean;
  /** history window, ms since epoch (inclusive) */
  startTs?: number;
  endTs?: number;
  includePasswords: boolean;
  generator: string;
  title?: string;
  description?: string;
  /** ThingsBoard-format parts to write inside the file */
  thingsboard?: ThingsBoardPart[];
  /** what else to carry (recordings): written first, right after the header */
  attachments?: SandboxAttachment[];
}

type Num = number;

/** Time series numbers back to entity ids, and key ids back to names. */
function telemetryNames(db: DurableDb): { entity: Map<Num, string>; key: Map<Num, string> } {
  const entity = new Map<Num, string>();
  for (const r of db.all<{ num: number; id: string }>('SELECT num, id FROM devices')) entity.set(r.num, r.id);
  for (const r of db.all<{ num: number; entity_id: string }>('SELECT num, entity_id FROM entity_nums'))
    entity.set(-r.num, r.entity_id);
  const key = new Map<Num, string>();
  for (const r of db.all<{ key_id: number; key: string }>('SELECT key_id, key FROM ts_key'))
    key.set(r.key_id, r.key);
  return { entity, key };
}

function historyWhere(o: SandboxExportOptions): { sql: string; params: number[] } {
  return {
    sql: 'ts >= ? AND ts <= ?',
    params: [o.startTs ?? 0, o.endTs ?? Number.MAX_SAFE_INTEGER],
  };
}

/** The counts a header announces: rows per carried table, latest and history rows. */
export function sandboxCounts(
  db: DurableDb,
  o: Pick<SandboxExportOptions, 'history' | 'startTs' | 'endTs' | 'includePasswords'>,
): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const t of carriedTables(db, o.includePasswords))
    counts[t.name] = db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM "${t.name}"`)!.n;
  const tables = telemetryTables(db);
  counts.latest = db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${tables.latest}`)!.n;
  if (o.history) {
    const w = historyWhere(o as SandboxExportOptions);
    counts.history = db.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM ${tables.history} WHERE ${w.sql}`,
      w.params,
    )!.n;
  }
  return counts;
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The sandbox file's lines (each ends with "\n"), read from the store a chunk at a time so a large
 * store is written as a stream and the event loop keeps answering between chunks.
 */
export async function* sandboxLines(db: DurableDb, o: SandboxExportOptions): AsyncGenerator<string> {
  const tables = carriedTables(db, o.includePasswords);
  const attached = (o.attachments ?? []).map((a) => ({ a, now: a.snapshot() }));
  const counts = sandboxCounts(db, o);
  for (const { a, now } of attached) counts[a.name] = now.count;
  const header: SandboxHeader = {
    format: SANDBOX_FORMAT,
    // version 1 unless the file carries what version 2 added: an older Sandboard still reads it
    version: attached.some((x) => x.now.count > 0) ? SANDBOX_RECORDINGS_VERSION : 1,
    exportedAt: Date.now(),
    generator: o.generator,
    includes: {
      history: o.history,
      passwords: o.includePasswords,
      ...Object.fromEntries(attached.map(({ a }) => [a.name, true])),
      ...(o.history && o.startTs !== undefined ? { startTs: o.startTs } : {}),
      ...(o.history && o.endTs !== undefined ? { endTs: o.endTs } : {}),
    },
    counts,
    ...(o.title ? { title: o.title } : {}),
    ...(o.description ? { description: o.description } : {}),
  };
  let lines = 0;
  const line = (value: unknown) => {
    lines++;
    return `${JSON.stringify(value)}\n`;
  };
  yield line(header);
  for (const { a, now } of attached) for await (const value of now.lines()) yield line({ [a.kind]: value });
  const chunk = SANDBOX_LIMITS.rowsPerLine;
  for (const t of tables) {
    const cols = t.columns.map((c) => `"${c}"`).join(', ');
    const order = t.key.map((c) => `"${c}"`).join(', ');
    const secrets = SECRET_COLUMNS[t.name];
    for (let offset = 0; ; offset += chunk) {
      const rows = db.all<Record<string, string | number | null>>(
        `SELECT ${cols} FROM "${t.name}" ORDER BY ${order} LIMIT ? OFFSET ?`,
        [chunk, offset],
      );
      if (rows.length === 0) break;
      if (secrets && !o.includePasswords)
        for (const r of rows) for (const c of secrets.unlessPasswords) delete r[c];
      yield line({ table: t.name, rows });
      if (rows.length < chunk) break;
      await yieldToLoop();
    }
  }
  const names = telemetryNames(db);
  const toRow = (r: {
    entity_num: number;
    key_id: number;
    ts: number;
    t: string;
    v: string | number | null;
  }) => {
    const id = names.entity.get(r.entity_num);
    const key = names.key.get(r.key_id);
    return id === undefined || key === undefined ? null : ([id, key, r.ts, r.t, r.v] as SandboxTsRow);
  };
  type TsRecord = Parameters<typeof toRow>[0];
  const tsTables = telemetryTables(db);
  const latest = db.all<TsRecord>(`SELECT entity_num, key_id, ts, t, v FROM ${tsTables.latest}`);
  for (let i = 0; i < latest.length; i += chunk) {
    const rows = latest
      .slice(i, i + chunk)
      .map(toRow)
      .filter((r) => r !== null);
    if (rows.length) yield line({ latest: rows });
  }
  if (o.history) {
    const w = historyWhere(o);
    // one series (entity, key) at a time, by its primary key prefix: no statement stays open across a yield
    const series = db.all<{ entity_num: number; key_id: number }>(
      `SELECT DISTINCT entity_num, key_id FROM ${tsTables.history} ORDER BY entity_num, key_id`,
    );
    let out: SandboxTsRow[] = [];
    for (const s of series) {
      const id = names.entity.get(s.entity_num);
      const key = names.key.get(s.key_id);
      if (id === undefined || key === undefined) continue;
      const rows = db.all<{ ts: number; t: string; v: string | number | null }>(
        `SELECT ts, t, v FROM ${tsTables.history} WHERE entity_num = ? AND key_id = ? AND ${w.sql} ORDER BY ts`,
        [s.entity_num, s.key_id, ...w.params],
      );
      for (const r of rows) {
        out.push([id, key, r.ts, r.t, r.v]);
        if (out.length === chunk) {
          yield line({ history: out });
          out = [];
        }
      }
      await yieldToLoop();
    }
    if (out.length) yield line({ history: out });
  }
  for (const part of o.thingsboard ?? []) yield line({ thingsboard: part });
  yield `${JSON.stringify({ end: true, lines })}\n`;
}

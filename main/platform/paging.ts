import type { PageData, PageQuery } from '../../shared/schemas/common.ts';
import type { DurableDb, Param, Row } from '../store/durable-db.ts';

export interface PageSpec {
  /** FROM clause; the main table must be aliased e */
  from: string;
  /** conditions joined with AND */
  where: string[];
  params: Param[];
  /** column searched by textSearch */
  searchColumn: string;
  /** sortProperty -> SQL expression */
  sortColumns: Record<string, string>;
  defaultSort: string;
  /** the selected columns; default e.* */
  columns?: string;
  /**
   * A FROM without the joins that only add columns (the main table alone), for the count and the search:
   * the caller sets it only when no condition in `where` reads a joined table. With it, a text search
   * first collects the matching rows' `key` in one scan of the searched column's index.
   */
  narrow?: { from: string; key: string };
}

/** Matches up to which a search's page is sorted from the matches themselves rather than found by scanning. */
const SEARCH_SORT_MAX = 5_000;

/** Escapes LIKE wildcards so that a search for "50%_" finds exactly that text. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function queryPage<T>(db: DurableDb, spec: PageSpec, q: PageQuery, map: (row: Row) => T): PageData<T> {
  const where = [...spec.where];
  const params = [...spec.params];
  if (q.textSearch) {
    where.push(`${spec.searchColumn} LIKE ? ESCAPE '\\'`);
    params.push(likePattern(q.textSearch));
  }
  let whereSql = where.length ? `WHERE ${where.join(' AND ')}` : '';
  let total: number;
  if (spec.narrow && q.textSearch) {
    // one scan finds every match; few matches are then sorted by themselves, many are dense enough
    // for the sorted scan below to stop early
    const keys = db
      .all<{ k: Param }>(`SELECT ${spec.narrow.key} AS k ${spec.narrow.from} ${whereSql}`, params)
      .map((r) => r.k);
    total = keys.length;
    if (total <= SEARCH_SORT_MAX) {
      whereSql = `WHERE ${spec.narrow.key} IN (SELECT value FROM json_each(?))`;
      params.length = 0;
      params.push(JSON.stringify(keys));
    }
  } else {
    total = Number(
      db.get<{ n: number }>(`SELECT COUNT(*) AS n ${spec.narrow?.from ?? spec.from} ${whereSql}`, params)
        ?.n ?? 0,
    );
  }
  const sortExpr = spec.sortColumns[q.sortProperty ?? spec.defaultSort] ?? spec.sortColumns[spec.defaultSort];
  const order =
    q.sortOrder === 'ASC' ? 'ASC' : q.sortOrder === 'DESC' ? 'DESC' : q.sortProperty ? 'ASC' : 'DESC';
  const rows =
    total === 0
      ? []
      : db.all(
          `SELECT ${spec.columns ?? 'e.*'} ${spec.from} ${whereSql} ORDER BY ${sortExpr} ${order}, e.id ${order} LIMIT ? OFFSET ?`,
          [...params, q.pageSize, q.page * q.pageSize],
        );
  const totalPages = Math.ceil(total / q.pageSize);
  return {
    data: rows.map(map),
    totalPages,
    totalElements: total,
    hasNext: (q.page + 1) * q.pageSize < total,
  };
}

/** The rows of a table among ids (oldest first); unknown ids are left out. extra narrows them further. */
export function rowsByIds<T>(
  db: DurableDb,
  table: string,
  ids: string[],
  extra?: { column: string; value: Param },
): T[] {
  if (ids.length === 0) return [];
  const where = `id IN (${ids.map(() => '?').join(',')})${extra ? ` AND ${extra.column} = ?` : ''}`;
  return db.all<T>(`SELECT * FROM ${table} WHERE ${where} ORDER BY created_time`, [
    ...ids,
    ...(extra ? [extra.value] : []),
  ]);
}

export function parseJson(value: unknown, fallback: Record<string, unknown> = {}): Record<string, unknown> {
  if (typeof value !== 'string' || value === '') return fallback;
  try {
    const parsed = JSON.parse(value) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : fallback;
  } catch {
    return fallback;
  }
}

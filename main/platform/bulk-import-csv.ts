import { CsvSyntaxError, parseCsvRows } from '../../shared/csv.ts';
import {
  BULK_IMPORT_MAX_ROWS,
  type BulkImportRequest,
  type BulkImportResult,
} from '../../shared/schemas/entities.ts';
import type { AttributeScope } from '../../shared/schemas/telemetry.ts';
import { badRequestParams } from './errors.ts';
import { entityName } from './names.ts';

/** ThingsBoard's BulkImportColumnType values that set an entity's own fields. */
export const FIELD_COLUMNS = [
  'NAME',
  'TYPE',
  'LABEL',
  'DESCRIPTION',
  'IS_GATEWAY',
  'ACCESS_TOKEN',
  'MQTT_CLIENT_ID',
  'MQTT_USER_NAME',
  'MQTT_PASSWORD',
] as const;
export const KV_COLUMNS: Record<
  'SHARED_ATTRIBUTE' | 'SERVER_ATTRIBUTE' | 'TIMESERIES',
  AttributeScope | null
> = {
  SHARED_ATTRIBUTE: 'SHARED_SCOPE',
  SERVER_ATTRIBUTE: 'SERVER_SCOPE',
  TIMESERIES: null,
};
/** Credentials and transports Sandboard does not keep: a device line that fills one of them fails. */
const UNSUPPORTED_COLUMNS = [
  'X509',
  'LWM2M_CLIENT_ENDPOINT',
  'LWM2M_CLIENT_SECURITY_CONFIG_MODE',
  'LWM2M_CLIENT_IDENTITY',
  'LWM2M_CLIENT_KEY',
  'LWM2M_CLIENT_CERT',
  'LWM2M_BOOTSTRAP_SERVER_SECURITY_MODE',
  'LWM2M_BOOTSTRAP_SERVER_PUBLIC_KEY_OR_ID',
  'LWM2M_BOOTSTRAP_SERVER_SECRET_KEY',
  'LWM2M_SERVER_SECURITY_MODE',
  'LWM2M_SERVER_CLIENT_PUBLIC_KEY_OR_ID',
  'LWM2M_SERVER_CLIENT_SECRET_KEY',
  'SNMP_HOST',
  'SNMP_PORT',
  'SNMP_VERSION',
  'SNMP_COMMUNITY_STRING',
];
/** Columns of the edge import, ignored for devices and assets as ThingsBoard does. */
const IGNORED_COLUMNS = ['ROUTING_KEY', 'SECRET'];

export type Field = (typeof FIELD_COLUMNS)[number];

export interface Line {
  number: number;
  fields: Partial<Record<Field, string>>;
  kvs: { column: keyof typeof KV_COLUMNS; key: string; value: unknown }[];
  unsupported: string[];
}

/** What an entity's import makes of the columns: the fields it reads; the others are ignored. */
export interface ImportColumns {
  fields: readonly Field[];
  /** whether the device-only credential and transport columns fail a line (devices) or are ignored */
  failUnsupported: boolean;
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** ThingsBoard's TypeCastUtil.castValue: numbers (',' as decimal point too), booleans, JSON, else text. */
export function castCsvValue(text: string): unknown {
  const number = text.replace(',', '.');
  if (NUMBER.test(number)) {
    const n = Number(number);
    if (Number.isFinite(n)) return n;
  } else if (/^(true|false)$/i.test(text)) {
    return text.toLowerCase() === 'true';
  } else {
    const t = text.trim();
    if ((t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'))) {
      try {
        return JSON.parse(t) as unknown;
      } catch {
        // not JSON after all: kept as text
      }
    }
  }
  return text;
}

/** The CSV file of a bulk import, line by line, as the mapping names its columns. */
export function parseBulkImport(request: BulkImportRequest, wanted: ImportColumns): Line[] {
  const columns = request.mapping.columns.map((c, i) => {
    const type = c.type.toUpperCase();
    const known =
      (FIELD_COLUMNS as readonly string[]).includes(type) ||
      type in KV_COLUMNS ||
      UNSUPPORTED_COLUMNS.includes(type) ||
      IGNORED_COLUMNS.includes(type);
    if (!known) throw badRequestParams(`Invalid mapping: column ${i + 1} has the unknown type '${c.type}'`);
    return { type, key: c.key ?? '' };
  });
  let rows: string[][];
  try {
    rows = parseCsvRows(request.file, request.mapping.delimiter ?? ',');
  } catch (err) {
    if (err instanceof CsvSyntaxError) throw badRequestParams(`Invalid CSV file: ${err.message}`);
    throw err;
  }
  let number = 0;
  if (request.mapping.header) {
    rows.shift();
    number++;
  }
  if (rows.length > BULK_IMPORT_MAX_ROWS)
    throw badRequestParams(`The file has ${rows.length} lines; at most ${BULK_IMPORT_MAX_ROWS} per import`);
  return rows.map((row) => {
    const line: Line = { number: ++number, fields: {}, kvs: [], unsupported: [] };
    row.forEach((cell, i) => {
      const column = columns[i];
      if (cell === '') return;
      if (!column) {
        line.unsupported.push(`value ${i + 1} has no column in the mapping (${columns.length} columns)`);
        return;
      }
      if (column.type in KV_COLUMNS) {
        if (column.key !== '')
          line.kvs.push({
            column: column.type as keyof typeof KV_COLUMNS,
            key: column.key,
            value: castCsvValue(cell),
          });
      } else if (wanted.fields.includes(column.type as Field)) {
        line.fields[column.type as Field] = cell;
      } else if (wanted.failUnsupported && UNSUPPORTED_COLUMNS.includes(column.type)) {
        line.unsupported.push(
          `${column.type} is not supported: Sandboard keeps access tokens and MQTT basic credentials`,
        );
      }
    });
    return line;
  });
}

/**
 * A line's attributes by scope and its time series, as its key-value columns give them: written for a new
 * entity, and for an existing one only when the mapping asks to update.
 */
export function valuesToWrite(
  line: Line,
  existed: boolean,
  request: BulkImportRequest,
): { attributes: Map<AttributeScope, Record<string, unknown>>; timeseries: Record<string, unknown> } {
  const attributes = new Map<AttributeScope, Record<string, unknown>>();
  const timeseries: Record<string, unknown> = {};
  if (existed && request.mapping.update !== true) return { attributes, timeseries };
  for (const kv of line.kvs) {
    const scope = KV_COLUMNS[kv.column];
    if (scope === null) timeseries[kv.key] = kv.value;
    else attributes.set(scope, { ...attributes.get(scope), [kv.key]: kv.value });
  }
  return { attributes, timeseries };
}

/** The entity name a line gives, checked as ThingsBoard checks it; the line's problems fail it first. */
export function lineName(line: Line, entity: 'Device' | 'Asset'): string {
  if (line.unsupported.length) throw new Error(line.unsupported.join('; '));
  if (!line.fields.NAME?.trim()) throw new Error(`${entity} name should be specified!`);
  return entityName(line.fields.NAME, `${entity} name`);
}

/** Imports every line (without waiting for each fsync: they share the store's write groups) and counts. */
export async function importLines(
  lines: Line[],
  importLine: (line: Line) => Promise<'created' | 'updated'>,
): Promise<BulkImportResult> {
  const result: BulkImportResult = { created: 0, updated: 0, errors: 0, errorsList: [] };
  const outcomes = await Promise.allSettled(lines.map((line) => importLine(line)));
  outcomes.forEach((o, i) => {
    if (o.status === 'fulfilled') {
      if (o.value === 'updated') result.updated++;
      else result.created++;
    } else {
      result.errors++;
      result.errorsList.push(`Line ${lines[i]!.number}: ${messageOf(o.reason)}`);
    }
  });
  return result;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

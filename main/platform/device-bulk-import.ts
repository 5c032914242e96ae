import { CsvSyntaxError, parseCsvRows } from '../../shared/csv.ts';
import type { AttributeScope } from '../../shared/schemas/telemetry.ts';
import {
  BULK_IMPORT_MAX_ROWS,
  type BulkImportRequest,
  type BulkImportResult,
} from '../../shared/schemas/entities.ts';
import { requireTenantAdmin, type Principal } from './auth/principal.ts';
import type { PlatformContext } from './context.ts';
import type { DeviceProfileService } from './device-profiles.ts';
import { credentialsIdOf, type DeviceRow, type DeviceService, type NewCredentials } from './devices.ts';
import { badRequestParams, isUniqueViolation } from './errors.ts';
import { entityName } from './names.ts';
import { parseJson } from './paging.ts';
import type { StoreBudget } from './store-budget.ts';
import type { TelemetryService } from './telemetry.ts';

/** ThingsBoard's BulkImportColumnType values for devices, and what Sandboard does with each. */
const FIELD_COLUMNS = [
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
const KV_COLUMNS: Record<'SHARED_ATTRIBUTE' | 'SERVER_ATTRIBUTE' | 'TIMESERIES', AttributeScope | null> = {
  SHARED_ATTRIBUTE: 'SHARED_SCOPE',
  SERVER_ATTRIBUTE: 'SERVER_SCOPE',
  TIMESERIES: null,
};
/** Credentials and transports Sandboard does not keep: a line that fills one of them fails. */
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
/** Columns of the edge import, ignored for devices as ThingsBoard does. */
const IGNORED_COLUMNS = ['ROUTING_KEY', 'SECRET'];

type Field = (typeof FIELD_COLUMNS)[number];

interface Line {
  number: number;
  fields: Partial<Record<Field, string>>;
  kvs: { column: keyof typeof KV_COLUMNS; key: string; value: unknown }[];
  unsupported: string[];
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

/** ThingsBoard's device bulk import (POST /api/device/bulk_import): one CSV line, one device. */
export class DeviceBulkImport {
  private readonly ctx: PlatformContext;
  private readonly devices: DeviceService;
  private readonly profiles: DeviceProfileService;
  private readonly telemetry: TelemetryService;
  private readonly storage: StoreBudget | undefined;

  constructor(
    ctx: PlatformContext,
    deps: {
      devices: DeviceService;
      profiles: DeviceProfileService;
      telemetry: TelemetryService;
      storage?: StoreBudget;
    },
  ) {
    this.ctx = ctx;
    this.devices = deps.devices;
    this.profiles = deps.profiles;
    this.telemetry = deps.telemetry;
    this.storage = deps.storage;
  }

  async run(request: BulkImportRequest, actor: Principal): Promise<BulkImportResult> {
    requireTenantAdmin(actor);
    const lines = this.parse(request);
    // A full store refuses the import (507); one that fills up during it fails the lines after.
    await this.storage?.admit();
    const result: BulkImportResult = { created: 0, updated: 0, errors: 0, errorsList: [] };
    // Lines are written one after another without waiting for each fsync: they share the store's write groups.
    const outcomes = await Promise.allSettled(lines.map((line) => this.importLine(line, request)));
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

  private parse(request: BulkImportRequest): Line[] {
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
        } else if ((FIELD_COLUMNS as readonly string[]).includes(column.type)) {
          line.fields[column.type as Field] = cell;
        } else if (UNSUPPORTED_COLUMNS.includes(column.type)) {
          line.unsupported.push(
            `${column.type} is not supported: Sandboard keeps access tokens and MQTT basic credentials`,
          );
        }
      });
      return line;
    });
  }

  private async importLine(line: Line, request: BulkImportRequest): Promise<'created' | 'updated'> {
    if (line.unsupported.length) throw new Error(line.unsupported.join('; '));
    if (!line.fields.NAME?.trim()) throw new Error('Device name should be specified!');
    const name = entityName(line.fields.NAME, 'Device name');
    const { fields } = line;
    await this.storage?.admit();
    const ts = this.ctx.now();
    const credentials = credentialsOf(fields);
    const newId = credentials && credentialsIdOf(credentials);
    let oldToken: string | undefined;
    const outcome = await this.ctx.db
      .write((w) => {
        const existing = w.get<DeviceRow>('SELECT * FROM devices WHERE name = ?', [name]);
        const info = existing ? parseJson(existing.additional_info) : {};
        if (fields.DESCRIPTION !== undefined) info.description = fields.DESCRIPTION;
        if (fields.IS_GATEWAY !== undefined) info.gateway = fields.IS_GATEWAY.trim().toLowerCase() === 'true';
        const profile = fields.TYPE
          ? this.profiles.findOrCreate(w, fields.TYPE)
          : existing
            ? { id: existing.device_profile_id, name: existing.type }
            : this.profiles.defaultRow();
        if (!profile) throw new Error('No default device profile');
        let id: string;
        if (existing) {
          id = existing.id;
          w.run(
            'UPDATE devices SET type = ?, label = ?, device_profile_id = ?, additional_info = ? WHERE id = ?',
            [profile.name, fields.LABEL ?? existing.label, profile.id, JSON.stringify(info), id],
          );
          if (credentials) {
            oldToken = w.get<{ credentials_id: string }>(
              'SELECT credentials_id FROM device_credentials WHERE device_id = ?',
              [id],
            )?.credentials_id;
            this.devices.writeCredentials(w, id, credentials);
          }
        } else {
          id = this.devices.insert(
            w,
            {
              name,
              profileId: profile.id,
              profileName: profile.name,
              label: fields.LABEL ?? null,
              customerId: null,
              info: JSON.stringify(info),
            },
            credentials,
          );
        }
        const writeKvs = !existing || request.mapping.update === true;
        const attributes = new Map<AttributeScope, Record<string, unknown>>();
        const timeseries: Record<string, unknown> = {};
        if (writeKvs)
          for (const kv of line.kvs) {
            const scope = KV_COLUMNS[kv.column];
            if (scope === null) timeseries[kv.key] = kv.value;
            else attributes.set(scope, { ...attributes.get(scope), [kv.key]: kv.value });
          }
        for (const [scope, values] of attributes) this.telemetry.writeAttributes(w, id, scope, values, ts);
        const num = w.get<{ num: number }>('SELECT num FROM devices WHERE id = ?', [id])!.num;
        if (Object.keys(timeseries).length) this.ctx.telemetry.save(w, num, [{ ts, values: timeseries }]);
        return { id, created: !existing, attributes, timeseries };
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err))
          throw new Error('Device credentials are already assigned to another device!');
        throw err;
      });
    const { events } = this.ctx;
    events.emit('deviceSaved', { deviceId: outcome.id, created: outcome.created });
    if (oldToken !== undefined && newId && oldToken !== newId)
      events.emit('credentialsChanged', { deviceId: outcome.id, oldToken, newToken: newId });
    for (const [scope, values] of outcome.attributes)
      events.emit('attributes', { deviceId: outcome.id, scope, values, ts });
    if (Object.keys(outcome.timeseries).length)
      events.emit('telemetry', { deviceId: outcome.id, entries: [{ ts, values: outcome.timeseries }] });
    return outcome.created ? 'created' : 'updated';
  }
}

/** ThingsBoard's order: MQTT basic credentials when a column names them, else an access token when given. */
function credentialsOf(fields: Partial<Record<Field, string>>): NewCredentials | undefined {
  if (fields.MQTT_CLIENT_ID || fields.MQTT_USER_NAME || fields.MQTT_PASSWORD)
    return {
      type: 'MQTT_BASIC',
      basic: {
        clientId: fields.MQTT_CLIENT_ID ?? null,
        userName: fields.MQTT_USER_NAME ?? null,
        password: fields.MQTT_PASSWORD ?? null,
      },
    };
  return fields.ACCESS_TOKEN ? { type: 'ACCESS_TOKEN', token: fields.ACCESS_TOKEN } : undefined;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

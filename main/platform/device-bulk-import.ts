import type { BulkImportRequest, BulkImportResult } from '../../shared/schemas/entities.ts';
import { requireTenantAdmin, type Principal } from './auth/principal.ts';
import {
  FIELD_COLUMNS,
  importLines,
  lineName,
  parseBulkImport,
  type Field,
  type Line,
  valuesToWrite,
} from './bulk-import-csv.ts';
import type { PlatformContext } from './context.ts';
import type { DeviceProfileService } from './device-profiles.ts';
import { credentialsIdOf, type DeviceRow, type DeviceService, type NewCredentials } from './devices.ts';
import { isUniqueViolation } from './errors.ts';
import { parseJson } from './paging.ts';
import type { StoreBudget } from './store-budget.ts';
import type { TelemetryService } from './telemetry.ts';

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
    const lines = parseBulkImport(request, { fields: FIELD_COLUMNS, failUnsupported: true });
    // A full store refuses the import (507); one that fills up during it fails the lines after.
    await this.storage?.admit();
    return importLines(lines, (line) => this.importLine(line, request));
  }

  private async importLine(line: Line, request: BulkImportRequest): Promise<'created' | 'updated'> {
    const name = lineName(line, 'Device');
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
        const { attributes, timeseries } = valuesToWrite(line, existing !== undefined, request);
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

import { randomUUID } from 'node:crypto';
import type { PageData, PageQuery } from '../../shared/schemas/common.ts';
import { alarmRulesIssues } from '../../shared/schemas/device-profile-alarms.ts';
import type {
  DeviceProfile,
  DeviceProfileInfo,
  EntityInfo,
  ProvisionType,
  SaveDeviceProfileRequest,
} from '../../shared/schemas/entities.ts';
import type { Row, Writer } from '../store/durable-db.ts';
import { requireTenantAdmin, type Principal } from './auth/principal.ts';
import { ref, type PlatformContext } from './context.ts';
import { badRequestParams, invalidArgument, isUniqueViolation, notFound } from './errors.ts';
import { entityName } from './names.ts';
import { writeOtaColumns } from './ota-packages.ts';
import { parseJson, queryPage, rowsByIds } from './paging.ts';

export interface DeviceProfileRow {
  id: string;
  created_time: number;
  name: string;
  description: string | null;
  is_default: number;
  type: string;
  transport_type: string;
  default_rule_chain_id: string | null;
  profile_data: string | null;
  provision_type: ProvisionType;
  provision_device_key: string | null;
  default_queue_name?: string | null;
  firmware_id?: string | null;
  software_id?: string | null;
}

const PROVISION_TYPES = new Set<string>([
  'DISABLED',
  'ALLOW_CREATE_NEW_DEVICES',
  'CHECK_PRE_PROVISIONED_DEVICES',
]);

/** profileData.provisionConfiguration.provisionDeviceSecret, where ThingsBoard keeps the secret. */
export function provisionSecretOf(profileData: unknown): string | null {
  const config = (profileData as { provisionConfiguration?: { provisionDeviceSecret?: unknown } } | null)
    ?.provisionConfiguration;
  const secret = config?.provisionDeviceSecret;
  return typeof secret === 'string' && secret !== '' ? secret : null;
}

/**
 * The provisioning fields of a save, checked and made consistent as ThingsBoard keeps them: provisionType
 * on the profile and in profileData.provisionConfiguration.type, the key unique, both key and secret
 * required unless DISABLED.
 */
function provisioningOf(
  input: SaveDeviceProfileRequest,
  before: DeviceProfileRow | undefined,
): { type: ProvisionType; key: string | null; profileData: Record<string, unknown> } {
  const profileData = { ...(input.profileData ?? DEFAULT_PROFILE_DATA) } as Record<string, unknown>;
  const config = { ...((profileData.provisionConfiguration as Record<string, unknown> | null) ?? {}) };
  const fromData =
    typeof config.type === 'string' && PROVISION_TYPES.has(config.type) ? config.type : undefined;
  const type = (input.provisionType ?? fromData ?? before?.provision_type ?? 'DISABLED') as ProvisionType;
  const key = input.provisionDeviceKey?.trim() || null;
  const secret = provisionSecretOf(profileData);
  if (type !== 'DISABLED' && (!key || !secret))
    throw invalidArgument(
      `Provision strategy ${type} needs provisionDeviceKey and profileData.provisionConfiguration.provisionDeviceSecret`,
    );
  profileData.provisionConfiguration = { ...config, type, provisionDeviceSecret: secret };
  return { type, key, profileData };
}

/**
 * profileData.alarms checked (400 naming the JSON path of each bad value, as many as fit a line) and
 * every alarm rule given an id when it has none (the device profile node keeps its state by that id).
 */
function checkAlarmRules(profileData: Record<string, unknown>): void {
  const issues = alarmRulesIssues(profileData.alarms);
  if (issues.length > 0) {
    const shown = issues.slice(0, 5).map((i) => `${i.path}: ${i.message}`);
    if (issues.length > shown.length) shown.push(`... and ${issues.length - shown.length} more`);
    throw badRequestParams(shown.join('; '));
  }
  if (Array.isArray(profileData.alarms))
    profileData.alarms = profileData.alarms.map((a: Record<string, unknown>) =>
      typeof a.id === 'string' && a.id !== '' ? a : { ...a, id: randomUUID() },
    );
}

/** A new profile's data (ThingsBoard's DeviceProfileData of a DEFAULT profile). */
export const DEFAULT_PROFILE_DATA = {
  configuration: { type: 'DEFAULT' },
  transportConfiguration: { type: 'DEFAULT' },
  provisionConfiguration: { type: 'DISABLED', provisionDeviceSecret: null },
  alarms: null,
};

export class DeviceProfileService {
  private readonly ctx: PlatformContext;
  constructor(ctx: PlatformContext) {
    this.ctx = ctx;
  }

  toProfile(row: DeviceProfileRow): DeviceProfile {
    return {
      id: ref('DEVICE_PROFILE', row.id),
      createdTime: row.created_time,
      tenantId: ref('TENANT', this.ctx.tenantId),
      name: row.name,
      description: row.description,
      type: 'DEFAULT',
      transportType: row.transport_type,
      provisionType: row.provision_type,
      provisionDeviceKey: row.provision_device_key,
      default: row.is_default === 1,
      defaultRuleChainId: row.default_rule_chain_id ? ref('RULE_CHAIN', row.default_rule_chain_id) : null,
      defaultQueueName: row.default_queue_name ?? null,
      profileData: parseJson(row.profile_data, DEFAULT_PROFILE_DATA),
      firmwareId: row.firmware_id ? ref('OTA_PACKAGE', row.firmware_id) : null,
      softwareId: row.software_id ? ref('OTA_PACKAGE', row.software_id) : null,
    };
  }

  findRow(id: string): DeviceProfileRow | undefined {
    return this.ctx.db.get<DeviceProfileRow>('SELECT * FROM device_profiles WHERE id = ?', [id]);
  }

  findRowByProvisionKey(key: string): DeviceProfileRow | undefined {
    return this.ctx.db.get<DeviceProfileRow>('SELECT * FROM device_profiles WHERE provision_device_key = ?', [
      key,
    ]);
  }

  findRowByName(name: string): DeviceProfileRow | undefined {
    return this.ctx.db.get<DeviceProfileRow>('SELECT * FROM device_profiles WHERE name = ?', [name]);
  }

  defaultRow(): DeviceProfileRow | undefined {
    return this.ctx.db.get<DeviceProfileRow>('SELECT * FROM device_profiles WHERE is_default = 1');
  }

  /** Finds a profile by name or creates it, inside the caller's write (gateways and devices name profiles). */
  findOrCreate(w: Writer, profileName: string): DeviceProfileRow {
    const name = entityName(profileName, 'Device profile name');
    const existing = w.get<DeviceProfileRow>('SELECT * FROM device_profiles WHERE name = ?', [name]);
    if (existing) return existing;
    const row: DeviceProfileRow = {
      id: randomUUID(),
      created_time: this.ctx.now(),
      name,
      description: null,
      is_default: 0,
      type: 'DEFAULT',
      transport_type: 'DEFAULT',
      default_rule_chain_id: null,
      profile_data: JSON.stringify(DEFAULT_PROFILE_DATA),
      provision_type: 'DISABLED',
      provision_device_key: null,
    };
    w.run(
      `INSERT INTO device_profiles (id, created_time, name, description, is_default, type, transport_type, profile_data)
       VALUES (?, ?, ?, NULL, 0, 'DEFAULT', 'DEFAULT', ?)`,
      [row.id, row.created_time, name, row.profile_data],
    );
    return row;
  }

  async seedDefault(): Promise<void> {
    if (this.defaultRow()) return;
    await this.ctx.db.write((w) => {
      const row = this.findOrCreate(w, 'default');
      w.run('UPDATE device_profiles SET is_default = 1, description = ? WHERE id = ?', [
        'Default device profile',
        row.id,
      ]);
    });
  }

  get(id: string): DeviceProfile {
    return this.toProfile(this.requireRow(id));
  }

  getDefault(): DeviceProfile {
    return this.toProfile(this.requireDefaultRow());
  }

  private requireRow(id: string): DeviceProfileRow {
    const row = this.findRow(id);
    if (!row) throw notFound(`Device profile with id [${id}] is not found`);
    return row;
  }

  private requireDefaultRow(): DeviceProfileRow {
    const row = this.defaultRow();
    if (!row) throw notFound('No default device profile');
    return row;
  }

  async save(request: SaveDeviceProfileRequest, actor: Principal): Promise<DeviceProfile> {
    await this.ctx.admit?.();
    requireTenantAdmin(actor);
    const input = { ...request, name: entityName(request.name, 'Device profile name') };
    const id = input.id?.id ?? randomUUID();
    const ruleChainId = input.defaultRuleChainId?.id ?? null;
    if (
      ruleChainId &&
      !this.ctx.db.get("SELECT 1 FROM rule_chains WHERE id = ? AND type = 'CORE'", [ruleChainId])
    )
      throw invalidArgument(`Can't assign non-existent rule chain [${ruleChainId}] to the device profile!`);
    try {
      await this.ctx.db.write((w) => {
        const before = input.id
          ? w.get<DeviceProfileRow>('SELECT * FROM device_profiles WHERE id = ?', [id])
          : undefined;
        if (input.id && !before) throw notFound(`Device profile with id [${id}] is not found`);
        const provisioning = provisioningOf(input, before);
        checkAlarmRules(provisioning.profileData);
        const data = JSON.stringify(provisioning.profileData);
        if (before) {
          w.run(
            `UPDATE device_profiles SET name = ?, description = ?, transport_type = ?, profile_data = ?,
               provision_type = ?, provision_device_key = ? WHERE id = ?`,
            [
              input.name,
              input.description,
              input.transportType ?? before.transport_type,
              data,
              provisioning.type,
              provisioning.key,
              id,
            ],
          );
          if (before.name !== input.name)
            w.run('UPDATE devices SET type = ? WHERE device_profile_id = ?', [input.name, id]);
          // A client that does not send them (an older editor) keeps the profile's chain and queue.
          w.run('UPDATE device_profiles SET default_rule_chain_id = ?, default_queue_name = ? WHERE id = ?', [
            input.defaultRuleChainId === undefined ? before.default_rule_chain_id : ruleChainId,
            input.defaultQueueName === undefined
              ? (before.default_queue_name ?? null)
              : input.defaultQueueName,
            id,
          ]);
        } else {
          w.run(
            `INSERT INTO device_profiles (id, created_time, name, description, is_default, type, transport_type,
               profile_data, provision_type, provision_device_key)
             VALUES (?, ?, ?, ?, 0, 'DEFAULT', ?, ?, ?, ?)`,
            [
              id,
              this.ctx.now(),
              input.name,
              input.description,
              input.transportType ?? 'DEFAULT',
              data,
              provisioning.type,
              provisioning.key,
            ],
          );
          w.run('UPDATE device_profiles SET default_rule_chain_id = ?, default_queue_name = ? WHERE id = ?', [
            ruleChainId,
            input.defaultQueueName ?? null,
            id,
          ]);
        }
        if (input.default) this.makeDefault(w, id);
        writeOtaColumns(w, 'device_profiles', id, id, input);
      });
    } catch (err) {
      if (isUniqueViolation(err)) {
        if (/provision_device_key/.test((err as Error).message))
          throw invalidArgument('Device profile with such provision device key already exists!');
        throw invalidArgument(`Device profile with such name already exists!`);
      }
      throw err;
    }
    this.ctx.events.emit('profileChanged', { profileId: id });
    return this.get(id);
  }

  async setDefault(id: string, actor: Principal): Promise<DeviceProfile> {
    requireTenantAdmin(actor);
    if (!this.findRow(id)) throw notFound(`Device profile with id [${id}] is not found`);
    await this.ctx.db.write((w) => this.makeDefault(w, id));
    return this.get(id);
  }

  async delete(id: string, actor: Principal): Promise<void> {
    requireTenantAdmin(actor);
    const row = this.findRow(id);
    if (!row) throw notFound(`Device profile with id [${id}] is not found`);
    if (row.is_default) throw invalidArgument('The default device profile cannot be deleted!');
    if (this.ctx.db.get('SELECT 1 FROM devices WHERE device_profile_id = ? LIMIT 1', [id])) {
      throw invalidArgument('The device profile referenced by the devices cannot be deleted!');
    }
    await this.ctx.db.write((w) => w.run('DELETE FROM device_profiles WHERE id = ?', [id]));
    this.ctx.events.emit('profileChanged', { profileId: id });
  }

  page(q: PageQuery): PageData<DeviceProfile> {
    return this.pageOf(q, undefined, (r) => this.toProfile(r));
  }

  toInfo(row: DeviceProfileRow): DeviceProfileInfo {
    return {
      id: ref('DEVICE_PROFILE', row.id),
      tenantId: ref('TENANT', this.ctx.tenantId),
      name: row.name,
      image: null,
      defaultDashboardId: null,
      type: 'DEFAULT',
      transportType: row.transport_type,
    };
  }

  info(id: string): DeviceProfileInfo {
    return this.toInfo(this.requireRow(id));
  }

  defaultInfo(): DeviceProfileInfo {
    return this.toInfo(this.requireDefaultRow());
  }

  infoPage(q: PageQuery, transportType?: string): PageData<DeviceProfileInfo> {
    return this.pageOf(q, transportType, (r) => this.toInfo(r));
  }

  private pageOf<T>(
    q: PageQuery,
    transportType: string | undefined,
    map: (r: DeviceProfileRow) => T,
  ): PageData<T> {
    return queryPage(
      this.ctx.db,
      {
        from: 'FROM device_profiles e',
        where: transportType ? ['e.transport_type = ?'] : [],
        params: transportType ? [transportType] : [],
        searchColumn: 'e.name',
        sortColumns: {
          createdTime: 'e.created_time',
          name: 'e.name',
          type: 'e.type',
          transportType: 'e.transport_type',
        },
        defaultSort: 'createdTime',
      },
      q,
      (r: Row) => map(r as unknown as DeviceProfileRow),
    );
  }

  infosByIds(ids: string[]): DeviceProfileInfo[] {
    return rowsByIds<DeviceProfileRow>(this.ctx.db, 'device_profiles', ids).map((r) => this.toInfo(r));
  }

  /** Profile names by name; activeOnly: only profiles some device uses. */
  names(activeOnly: boolean): EntityInfo[] {
    const sql = activeOnly
      ? 'SELECT id, name FROM device_profiles p WHERE EXISTS (SELECT 1 FROM devices d WHERE d.device_profile_id = p.id) ORDER BY name'
      : 'SELECT id, name FROM device_profiles ORDER BY name';
    return this.ctx.db
      .all<{ id: string; name: string }>(sql)
      .map((r) => ({ id: ref('DEVICE_PROFILE', r.id), name: r.name }));
  }

  /** Attribute (every scope) or time series keys of the devices of a profile, or of every device. */
  deviceKeys(kind: 'attributes' | 'timeseries', profileId?: string): string[] {
    if (profileId && !this.findRow(profileId))
      throw notFound(`Device profile with id [${profileId}] is not found`);
    const filter = profileId ? 'WHERE d.device_profile_id = ?' : '';
    const sql =
      kind === 'attributes'
        ? `SELECT DISTINCT a.key AS key FROM attributes a JOIN devices d ON d.id = a.entity_id ${filter} ORDER BY a.key`
        : `SELECT DISTINCT k.key AS key FROM ts_latest_all l JOIN ts_key k ON k.key_id = l.key_id
           JOIN devices d ON d.num = l.entity_num ${filter} ORDER BY k.key`;
    return this.ctx.db.all<{ key: string }>(sql, profileId ? [profileId] : []).map((r) => r.key);
  }

  private makeDefault(w: Writer, id: string): void {
    w.run('UPDATE device_profiles SET is_default = CASE WHEN id = ? THEN 1 ELSE 0 END', [id]);
  }
}

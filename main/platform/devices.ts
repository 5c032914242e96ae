import { randomBytes, randomUUID } from 'node:crypto';
import { NULL_UUID, type PageData, type PageQuery } from '../../shared/schemas/common.ts';
import type {
  Device,
  DeviceCredentials,
  SaveDeviceCredentialsRequest,
  SaveDeviceRequest,
} from '../../shared/schemas/entities.ts';
import type { Row, Writer } from '../store/durable-db.ts';
import { requireCustomerAccess, requireTenantAdmin, type Principal } from './auth/principal.ts';
import { ref, type PlatformContext } from './context.ts';
import type { DeviceProfileService } from './device-profiles.ts';
import { invalidArgument, isUniqueViolation, notFound } from './errors.ts';
import { parseJson, queryPage } from './paging.ts';

export interface DeviceRow {
  num: number;
  id: string;
  created_time: number;
  name: string;
  type: string;
  label: string | null;
  device_profile_id: string;
  customer_id: string | null;
  additional_info: string | null;
}

interface CredentialsRow {
  id: string;
  created_time: number;
  device_id: string;
  credentials_type: 'ACCESS_TOKEN';
  credentials_id: string;
}

export class DeviceLimitError extends Error {
  constructor(limit: number) {
    super(`Device limit reached: ${limit} devices`);
  }
}

const TOKEN_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** ThingsBoard-style access token: 20 random alphanumerics. */
export function generateAccessToken(): string {
  const bytes = randomBytes(20);
  let token = '';
  for (const b of bytes) token += TOKEN_ALPHABET[b % TOKEN_ALPHABET.length];
  return token;
}

export class DeviceService {
  private readonly ctx: PlatformContext;
  private readonly profiles: DeviceProfileService;

  constructor(ctx: PlatformContext, profiles: DeviceProfileService) {
    this.ctx = ctx;
    this.profiles = profiles;
  }

  toDevice(row: DeviceRow): Device {
    return {
      id: ref('DEVICE', row.id),
      createdTime: row.created_time,
      tenantId: ref('TENANT', this.ctx.tenantId),
      customerId: ref('CUSTOMER', row.customer_id ?? NULL_UUID),
      name: row.name,
      type: row.type,
      label: row.label,
      deviceProfileId: ref('DEVICE_PROFILE', row.device_profile_id),
      additionalInfo: parseJson(row.additional_info),
    };
  }

  findRow(id: string): DeviceRow | undefined {
    return this.ctx.db.get<DeviceRow>('SELECT * FROM devices WHERE id = ?', [id]);
  }

  findRowByName(name: string): DeviceRow | undefined {
    return this.ctx.db.get<DeviceRow>('SELECT * FROM devices WHERE name = ?', [name]);
  }

  findRowByToken(token: string): DeviceRow | undefined {
    return this.ctx.db.get<DeviceRow>(
      'SELECT d.* FROM devices d JOIN device_credentials c ON c.device_id = d.id WHERE c.credentials_id = ?',
      [token],
    );
  }

  /** The device a principal may see, or 404 / 403. */
  accessibleRow(id: string, actor: Principal): DeviceRow {
    const row = this.findRow(id);
    if (!row) throw notFound(`Device with id [${id}] is not found`);
    requireCustomerAccess(actor, row.customer_id);
    return row;
  }

  get(id: string, actor: Principal): Device {
    return this.toDevice(this.accessibleRow(id, actor));
  }

  getByName(name: string, actor: Principal): Device {
    const row = this.findRowByName(name);
    if (!row) throw notFound(`Device with name [${name}] is not found`);
    requireCustomerAccess(actor, row.customer_id);
    return this.toDevice(row);
  }

  async save(input: SaveDeviceRequest, actor: Principal, accessToken?: string): Promise<Device> {
    requireTenantAdmin(actor);
    const customerId = input.customerId?.id && input.customerId.id !== NULL_UUID ? input.customerId.id : null;
    if (customerId && !this.ctx.db.get('SELECT 1 FROM customers WHERE id = ?', [customerId])) {
      throw invalidArgument(`Customer with id [${customerId}] is not found`);
    }
    let created = false;
    try {
      const id = await this.ctx.db.write((w) => {
        const profile = this.resolveProfile(w, input);
        const info = JSON.stringify(input.additionalInfo ?? {});
        if (input.id?.id) {
          const id = input.id.id;
          const n = w.run(
            'UPDATE devices SET name = ?, type = ?, label = ?, device_profile_id = ?, customer_id = ?, additional_info = ? WHERE id = ?',
            [input.name, profile.name, input.label, profile.id, customerId, info, id],
          );
          if (n === 0) throw notFound(`Device with id [${id}] is not found`);
          if (accessToken) this.writeCredentials(w, id, accessToken);
          return id;
        }
        created = true;
        return this.insert(
          w,
          {
            name: input.name,
            profileId: profile.id,
            profileName: profile.name,
            label: input.label ?? null,
            customerId,
            info,
          },
          accessToken,
        );
      });
      this.ctx.events.emit('deviceSaved', { deviceId: id, created });
      return this.toDevice(this.findRow(id)!);
    } catch (err) {
      if (isUniqueViolation(err)) {
        if (/device_credentials/.test((err as Error).message))
          throw invalidArgument('Device credentials are already assigned to another device!');
        throw invalidArgument('Device with such name already exists!');
      }
      throw err;
    }
  }

  /** Inserts a device with its access token inside the caller's write; returns its id. */
  insert(
    w: Writer,
    d: {
      name: string;
      profileId: string;
      profileName: string;
      label: string | null;
      customerId: string | null;
      info: string;
    },
    accessToken?: string,
  ): string {
    const id = randomUUID();
    const now = this.ctx.now();
    w.run(
      `INSERT INTO devices (id, created_time, name, type, label, device_profile_id, customer_id, additional_info)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, now, d.name, d.profileName, d.label, d.profileId, d.customerId, d.info],
    );
    w.run(
      `INSERT INTO device_credentials (id, created_time, device_id, credentials_type, credentials_id) VALUES (?, ?, ?, 'ACCESS_TOKEN', ?)`,
      [randomUUID(), now, id, accessToken ?? generateAccessToken()],
    );
    return id;
  }

  async delete(id: string, actor: Principal): Promise<void> {
    requireTenantAdmin(actor);
    const row = this.findRow(id);
    if (!row) throw notFound(`Device with id [${id}] is not found`);
    await this.ctx.db.write((w) => {
      w.run('DELETE FROM devices WHERE id = ?', [id]);
      w.run('DELETE FROM device_credentials WHERE device_id = ?', [id]);
      w.run('DELETE FROM attributes WHERE entity_id = ?', [id]);
      w.run('DELETE FROM relations WHERE from_id = ? OR to_id = ?', [id, id]);
      this.ctx.telemetry.deleteEntity(w, row.num);
    });
    this.ctx.events.emit('deviceDeleted', { deviceId: id, name: row.name });
  }

  async assignToCustomer(deviceId: string, customerId: string | null, actor: Principal): Promise<Device> {
    requireTenantAdmin(actor);
    if (customerId && !this.ctx.db.get('SELECT 1 FROM customers WHERE id = ?', [customerId])) {
      throw notFound(`Customer with id [${customerId}] is not found`);
    }
    const n = await this.ctx.db.write((w) =>
      w.run('UPDATE devices SET customer_id = ? WHERE id = ?', [customerId, deviceId]),
    );
    if (n === 0) throw notFound(`Device with id [${deviceId}] is not found`);
    return this.toDevice(this.findRow(deviceId)!);
  }

  page(q: PageQuery, filter: { customerId?: string; type?: string }): PageData<Device> {
    const where: string[] = [];
    const params: string[] = [];
    if (filter.customerId) {
      where.push('e.customer_id = ?');
      params.push(filter.customerId);
    }
    if (filter.type) {
      where.push('e.type = ?');
      params.push(filter.type);
    }
    return queryPage(
      this.ctx.db,
      {
        from: 'FROM devices e',
        where,
        params,
        searchColumn: 'e.name',
        sortColumns: {
          createdTime: 'e.created_time',
          name: 'e.name',
          type: 'e.type',
          label: 'e.label',
          deviceProfileName: 'e.type',
        },
        defaultSort: 'createdTime',
      },
      q,
      (r: Row) => this.toDevice(r as unknown as DeviceRow),
    );
  }

  getCredentials(deviceId: string, actor: Principal): DeviceCredentials {
    this.accessibleRow(deviceId, actor);
    const row = this.ctx.db.get<CredentialsRow>('SELECT * FROM device_credentials WHERE device_id = ?', [
      deviceId,
    ]);
    if (!row) throw notFound(`Credentials of device [${deviceId}] are not found`);
    return {
      id: { id: row.id },
      createdTime: row.created_time,
      deviceId: ref('DEVICE', row.device_id),
      credentialsType: 'ACCESS_TOKEN',
      credentialsId: row.credentials_id,
      credentialsValue: null,
    };
  }

  async saveCredentials(
    deviceId: string,
    input: SaveDeviceCredentialsRequest,
    actor: Principal,
  ): Promise<DeviceCredentials> {
    requireTenantAdmin(actor);
    const before = this.getCredentials(deviceId, actor);
    try {
      await this.ctx.db.write((w) => this.writeCredentials(w, deviceId, input.credentialsId));
    } catch (err) {
      if (isUniqueViolation(err))
        throw invalidArgument('Device credentials are already assigned to another device!');
      throw err;
    }
    this.ctx.events.emit('credentialsChanged', {
      deviceId,
      oldToken: before.credentialsId,
      newToken: input.credentialsId,
    });
    return this.getCredentials(deviceId, actor);
  }

  /**
   * A gateway's connect for a device: the device is found by name (unchanged, but for
   * lastConnectedGateway) or created with the named profile, a Created relation from the gateway and
   * the gateway's customer. limit > 0 caps the number of devices.
   */
  async connectViaGateway(gateway: DeviceRow, name: string, type: string, limit: number): Promise<DeviceRow> {
    let created = false;
    const id = await this.ctx.db.write((w) => {
      const existing = w.get<DeviceRow>('SELECT * FROM devices WHERE name = ?', [name]);
      if (existing) {
        const info = parseJson(existing.additional_info);
        if (info.lastConnectedGateway !== gateway.id) {
          w.run('UPDATE devices SET additional_info = ? WHERE id = ?', [
            JSON.stringify({ ...info, lastConnectedGateway: gateway.id }),
            existing.id,
          ]);
        }
        return existing.id;
      }
      if (limit > 0 && Number(w.get<{ n: number }>('SELECT COUNT(*) AS n FROM devices')?.n ?? 0) >= limit) {
        throw new DeviceLimitError(limit);
      }
      const profile = this.profiles.findOrCreate(w, type);
      // The gateway's owner now, not when its session began (the session's row is not refreshed).
      const owner = w.get<{ customer_id: string | null }>('SELECT customer_id FROM devices WHERE id = ?', [
        gateway.id,
      ]);
      const newId = this.insert(w, {
        name,
        profileId: profile.id,
        profileName: profile.name,
        label: null,
        customerId: owner ? owner.customer_id : gateway.customer_id,
        info: JSON.stringify({ gateway: false, lastConnectedGateway: gateway.id }),
      });
      w.run(
        `INSERT OR IGNORE INTO relations (from_id, from_type, to_id, to_type, type, type_group, additional_info)
         VALUES (?, 'DEVICE', ?, 'DEVICE', 'Created', 'COMMON', NULL)`,
        [gateway.id, newId],
      );
      created = true;
      return newId;
    });
    if (created) this.ctx.events.emit('deviceSaved', { deviceId: id, created: true });
    return this.findRow(id)!;
  }

  count(filter: { gateway?: boolean } = {}): number {
    const sql = filter.gateway
      ? `SELECT COUNT(*) AS n FROM devices WHERE json_extract(additional_info, '$.gateway') IN (1, 'true')`
      : 'SELECT COUNT(*) AS n FROM devices';
    return Number(this.ctx.db.get<{ n: number }>(sql)?.n ?? 0);
  }

  private writeCredentials(w: Writer, deviceId: string, token: string): void {
    w.run('UPDATE device_credentials SET credentials_id = ? WHERE device_id = ?', [token, deviceId]);
  }

  private resolveProfile(w: Writer, input: SaveDeviceRequest): { id: string; name: string } {
    if (input.deviceProfileId?.id) {
      const row = w.get<{ id: string; name: string }>('SELECT id, name FROM device_profiles WHERE id = ?', [
        input.deviceProfileId.id,
      ]);
      if (!row) throw invalidArgument(`Device profile with id [${input.deviceProfileId.id}] is not found`);
      return row;
    }
    if (input.type) return this.profiles.findOrCreate(w, input.type);
    const def = this.profiles.defaultRow();
    if (!def) throw invalidArgument('No default device profile');
    return def;
  }
}

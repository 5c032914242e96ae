import { createHash, randomUUID } from 'node:crypto';
import type { SqlValue } from 'sql.js';
import type { PageData, PageQuery } from '../../shared/schemas/common.ts';
import type {
  CredentialsType,
  Device,
  DeviceCredentials,
  EntitySubtype,
  SaveDeviceCredentialsRequest,
  SaveDeviceRequest,
} from '../../shared/schemas/entities.ts';
import type { Row, Writer } from '../store/durable-db.ts';
import { requireTenantAdmin, type Principal } from './auth/principal.ts';
import { ref, type PlatformContext } from './context.ts';
import type { DeviceProfileService } from './device-profiles.ts';
import { deleteEntityDependents } from './entity-directory.ts';
import { badRequestParams, invalidArgument, isUniqueViolation, notFound } from './errors.ts';
import { decodeKv, jsonText } from './kv-value.ts';
import { writeOtaColumns } from './ota-packages.ts';
import { entityName } from './names.ts';
import type { StoreBudget } from './store-budget.ts';
import { ChunkedQueue } from './chunked-queue.ts';
import { MqttCredentialCache } from './mqtt-credential-cache.ts';
import { OwnedEntityRows, requestedCustomerId } from './owned-entities.ts';
import { parseJson, queryPage } from './paging.ts';
import { randomAlphanumeric } from './random-text.ts';

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
  firmware_id?: string | null;
  software_id?: string | null;
}

interface CredentialsRow {
  id: string;
  created_time: number;
  device_id: string;
  credentials_type: CredentialsType;
  credentials_id: string;
  credentials_value: string | null;
}

/** MQTT_BASIC credentials as ThingsBoard keeps them (BasicMqttCredentials). */
export interface BasicMqttCredentials {
  clientId: string | null;
  userName: string | null;
  password: string | null;
}

/** A device's credentials to write: an access token, or MQTT basic credentials. */
export type NewCredentials =
  { type: 'ACCESS_TOKEN'; token: string } | { type: 'MQTT_BASIC'; basic: BasicMqttCredentials };

const sha3 = (text: string) => createHash('sha3-256').update(text).digest('hex');
const blank = (s: string | null | undefined): s is null | undefined | '' => !s;

/**
 * ThingsBoard's credentials id for MQTT basic credentials: the user name alone, a hash of the client id
 * alone, or a hash of both; checked as ThingsBoard checks them (client id and password cannot go
 * without a user name).
 */
export function mqttBasicCredentialsId(c: BasicMqttCredentials): string {
  if (blank(c.clientId) && blank(c.userName))
    throw invalidArgument('Both mqtt client id and user name are empty!');
  if (!blank(c.clientId) && !blank(c.password) && blank(c.userName))
    throw invalidArgument('Password cannot be specified along with client id');
  if (blank(c.clientId)) return c.userName!;
  if (blank(c.userName)) return sha3(c.clientId);
  return sha3(`${c.clientId}|${c.userName}`);
}

function parseBasic(value: string | null): BasicMqttCredentials | undefined {
  try {
    const v = JSON.parse(value ?? '') as Record<string, unknown>;
    const str = (x: unknown) => (typeof x === 'string' ? x : null);
    return { clientId: str(v.clientId), userName: str(v.userName), password: str(v.password) };
  } catch {
    return undefined;
  }
}

type BasicCheck = 'VALID' | 'HASH_MISMATCH' | 'PASSWORD_MISMATCH';

function checkBasic(
  stored: BasicMqttCredentials,
  clientId: string,
  userName: string,
  password: string,
): BasicCheck {
  if (!blank(stored.clientId) && stored.clientId !== clientId) return 'HASH_MISMATCH';
  if (!blank(stored.userName) && stored.userName !== userName) return 'HASH_MISMATCH';
  if (!blank(stored.password)) return stored.password === password ? 'VALID' : 'PASSWORD_MISMATCH';
  return 'VALID';
}

/** How long one chunk of gateway device creation may hold the event loop. */
const GATEWAY_DEVICES_SLICE_MS = 8;

/** Access tokens looked up by one query (findRowsByMqttCredentials). */
/** ThingsBoard's per-device inactivity timeout: a server attribute, in milliseconds. */
export const INACTIVITY_TIMEOUT_KEY = 'inactivityTimeout';

const TOKEN_BATCH = 64;
// the device's inactivity timeout comes along: its CONNECT's activity tracking would read it next
const TOKENS_QUERY = `SELECT c.credentials_id AS c_token, a.t AS a_t, a.v AS a_v, d.* FROM device_credentials c
  JOIN devices d ON d.id = c.device_id
  LEFT JOIN attributes a ON a.entity_id = d.id AND a.scope = 'SERVER_SCOPE' AND a.key = '${INACTIVITY_TIMEOUT_KEY}'
  WHERE c.credentials_type = 'ACCESS_TOKEN' AND c.credentials_id IN (${Array(TOKEN_BATCH).fill('?').join(', ')})`;

interface GatewayDeviceRequest {
  gateway: DeviceRow;
  name: string;
  type: string;
  limit: number;
  resolve: (row: DeviceRow) => void;
  reject: (err: unknown) => void;
}

export class DeviceLimitError extends Error {
  constructor(limit: number) {
    super(`Device limit reached: ${limit} devices`);
  }
}

/** ThingsBoard-style access token: 20 random alphanumerics. */
export function generateAccessToken(): string {
  return randomAlphanumeric(20);
}

export class DeviceService {
  private readonly ctx: PlatformContext;
  private readonly profiles: DeviceProfileService;
  private readonly storage: StoreBudget | undefined;

  private readonly rows: OwnedEntityRows<DeviceRow>;
  private readonly mqttCredentials = new MqttCredentialCache();

  constructor(ctx: PlatformContext, profiles: DeviceProfileService, storage?: StoreBudget) {
    this.ctx = ctx;
    this.profiles = profiles;
    this.storage = storage;
    this.rows = new OwnedEntityRows(ctx, { table: 'devices', entityType: 'DEVICE', label: 'Device' });
    // writes that change credentials outside this service (a sandbox replacing the tables)
    const forget = () => this.mqttCredentials.clear();
    ctx.events.on('credentialsChanged', forget);
    ctx.events.on('deviceDeleted', forget);
    ctx.events.on('sandboxLoaded', forget);
  }

  toDevice(row: DeviceRow): Device {
    return {
      id: ref('DEVICE', row.id),
      ...this.rows.commonFields(row),
      deviceProfileId: ref('DEVICE_PROFILE', row.device_profile_id),
      firmwareId: row.firmware_id ? ref('OTA_PACKAGE', row.firmware_id) : null,
      softwareId: row.software_id ? ref('OTA_PACKAGE', row.software_id) : null,
    };
  }

  findRow(id: string): DeviceRow | undefined {
    return this.rows.find(id);
  }

  findRowByName(name: string): DeviceRow | undefined {
    return this.rows.findByName(name);
  }

  /** The device an access token belongs to (MQTT basic credentials are not access tokens). */
  findRowByToken(token: string): DeviceRow | undefined {
    return this.ctx.db.get<DeviceRow>(
      `SELECT d.* FROM devices d JOIN device_credentials c ON c.device_id = d.id
       WHERE c.credentials_id = ? AND c.credentials_type = 'ACCESS_TOKEN'`,
      [token],
    );
  }

  /**
   * An MQTT CONNECT's device, as ThingsBoard finds it: by client id alone when there is no user name;
   * else by client id and user name, falling back to the user name alone (an access token, or MQTT basic
   * credentials with a user name only). A wrong password refuses at once.
   */
  findRowByMqttCredentials(clientId: string, userName: string, password: string): DeviceRow | undefined {
    const cache = this.mqttCredentials;
    // with no basic credentials anywhere, the user name is an access token or nothing
    const tokenOnly = !this.anyBasicCredentials();
    if (tokenOnly && blank(userName)) return undefined;
    const key = tokenOnly
      ? MqttCredentialCache.key('', userName, '')
      : MqttCredentialCache.key(clientId, userName, password);
    const cachedId = cache.deviceId(key);
    const cached = cachedId === undefined ? undefined : this.findRow(cachedId);
    if (cached) return cached;
    const found = tokenOnly
      ? this.findRowByToken(userName)
      : this.lookUpMqttCredentials(clientId, userName, password);
    if (found) cache.remember(key, found.id);
    return found;
  }

  /**
   * findRowByMqttCredentials for the CONNECTs of a fleet arriving together. Where no device has MQTT
   * basic credentials, every user name is an access token and they are all found by one indexed query
   * per TOKEN_BATCH, several times cheaper per CONNECT than a lookup each.
   */
  findRowsByMqttCredentials(
    connects: readonly { clientId: string; userName: string; password: string }[],
  ): (DeviceRow | undefined)[] {
    if (this.anyBasicCredentials())
      return connects.map((c) => this.findRowByMqttCredentials(c.clientId, c.userName, c.password));
    const found = new Map<string, DeviceRow>();
    const inactivityTimeouts = new Map<string, unknown>();
    for (let first = 0; first < connects.length; first += TOKEN_BATCH) {
      const tokens: string[] = [];
      for (let i = first; i < Math.min(first + TOKEN_BATCH, connects.length); i++)
        tokens.push(connects[i]!.userName);
      // padded to one statement text; a blank token finds nothing
      while (tokens.length < TOKEN_BATCH) tokens.push('');
      for (const { c_token: token, a_t: t, a_v: v, ...device } of this.ctx.db.all<
        DeviceRow & { c_token: string; a_t: string | null; a_v: SqlValue }
      >(TOKENS_QUERY, tokens)) {
        found.set(token, device);
        if (t !== null) inactivityTimeouts.set(device.id, decodeKv(t, v));
      }
    }
    if (found.size > 0)
      this.ctx.events.emit('devicesRead', { devices: [...found.values()], inactivityTimeouts });
    return connects.map((c) => (blank(c.userName) ? undefined : found.get(c.userName)));
  }

  /** Whether any device has MQTT basic credentials (remembered until credentials change). */
  private anyBasicCredentials(): boolean {
    return (this.mqttCredentials.anyBasic ??=
      this.ctx.db.get("SELECT 1 FROM device_credentials WHERE credentials_type = 'MQTT_BASIC' LIMIT 1") !==
      undefined);
  }

  private lookUpMqttCredentials(clientId: string, userName: string, password: string): DeviceRow | undefined {
    const byId = (credentialsId: string) =>
      this.ctx.db.get<DeviceRow & { c_type: CredentialsType; c_value: string | null }>(
        `SELECT d.*, c.credentials_type AS c_type, c.credentials_value AS c_value FROM devices d
         JOIN device_credentials c ON c.device_id = d.id WHERE c.credentials_id = ?`,
        [credentialsId],
      );
    const basicOk = (row: ReturnType<typeof byId>): BasicCheck => {
      const stored = row?.c_type === 'MQTT_BASIC' ? parseBasic(row.c_value) : undefined;
      return stored ? checkBasic(stored, clientId, userName, password) : 'HASH_MISMATCH';
    };
    const strip = (row: NonNullable<ReturnType<typeof byId>>): DeviceRow => {
      const { c_type: _t, c_value: _v, ...device } = row;
      return device;
    };
    if (blank(userName)) {
      const row = byId(sha3(clientId));
      return row && basicOk(row) === 'VALID' ? strip(row) : undefined;
    }
    const both = byId(sha3(`${clientId}|${userName}`));
    const check = basicOk(both);
    if (check === 'VALID') return strip(both!);
    if (check === 'PASSWORD_MISMATCH') return undefined;
    const row = byId(userName);
    if (!row) return undefined;
    if (row.c_type === 'ACCESS_TOKEN') return strip(row);
    return basicOk(row) === 'VALID' ? strip(row) : undefined;
  }

  /** The device a principal may see, or 404 / 403. */
  accessibleRow(id: string, actor: Principal): DeviceRow {
    return this.rows.accessible(id, actor);
  }

  get(id: string, actor: Principal): Device {
    return this.toDevice(this.accessibleRow(id, actor));
  }

  getByName(name: string, actor: Principal): Device {
    return this.toDevice(this.rows.accessibleByName(name, actor));
  }

  /** Creates or updates a device; credentials (an access token, or new credentials) replace its current ones. */
  async save(
    request: SaveDeviceRequest,
    actor: Principal,
    credentials?: string | NewCredentials,
  ): Promise<Device> {
    requireTenantAdmin(actor);
    const input = { ...request, name: entityName(request.name, 'Device name') };
    if (!input.id?.id) await this.storage?.admit();
    const customerId = requestedCustomerId(input);
    if (customerId && !this.ctx.db.get('SELECT 1 FROM customers WHERE id = ?', [customerId])) {
      throw invalidArgument(`Customer with id [${customerId}] is not found`);
    }
    let created = false;
    const newToken = credentials === undefined ? undefined : credentialColumns(asCredentials(credentials))[1];
    const oldToken =
      input.id?.id && newToken
        ? this.ctx.db.get<{ credentials_id: string }>(
            'SELECT credentials_id FROM device_credentials WHERE device_id = ?',
            [input.id.id],
          )?.credentials_id
        : undefined;
    try {
      const id = await this.ctx.db.write((w) => {
        const profile = this.resolveProfile(w, input);
        const info = jsonText(input.additionalInfo ?? {});
        if (input.id?.id) {
          const id = input.id.id;
          const n = w.run(
            'UPDATE devices SET name = ?, type = ?, label = ?, device_profile_id = ?, customer_id = ?, additional_info = ? WHERE id = ?',
            [input.name, profile.name, input.label, profile.id, customerId, info, id],
          );
          if (n === 0) throw notFound(`Device with id [${id}] is not found`);
          writeOtaColumns(w, 'devices', id, profile.id, input);
          if (credentials) this.writeCredentials(w, id, credentials);
          return id;
        }
        created = true;
        const newId = this.insert(
          w,
          {
            name: input.name,
            profileId: profile.id,
            profileName: profile.name,
            label: input.label ?? null,
            customerId,
            info,
          },
          credentials,
        );
        writeOtaColumns(w, 'devices', newId, profile.id, input);
        return newId;
      });
      this.ctx.events.emit('deviceSaved', { deviceId: id, created });
      if (oldToken !== undefined && newToken && oldToken !== newToken)
        this.ctx.events.emit('credentialsChanged', { deviceId: id, oldToken, newToken });
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
    credentials?: string | NewCredentials,
  ): string {
    const id = randomUUID();
    const now = this.ctx.now();
    const name = entityName(d.name, 'Device name');
    w.run(
      `INSERT INTO devices (id, created_time, name, type, label, device_profile_id, customer_id, additional_info)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, now, name, d.profileName, d.label, d.profileId, d.customerId, d.info],
    );
    const c: NewCredentials =
      typeof credentials === 'object'
        ? credentials
        : { type: 'ACCESS_TOKEN', token: credentials ?? generateAccessToken() };
    // basic credentials may be found before an access token another device's CONNECT was found by
    if (c.type !== 'ACCESS_TOKEN') this.mqttCredentials.clear();
    w.run(
      `INSERT INTO device_credentials (id, created_time, device_id, credentials_type, credentials_id, credentials_value)
       VALUES (?, ?, ?, ?, ?, ?)`,
      [randomUUID(), now, id, ...credentialColumns(c)],
    );
    return id;
  }

  async delete(id: string, actor: Principal): Promise<void> {
    requireTenantAdmin(actor);
    const row = this.rows.require(id);
    await this.ctx.db.write((w) => {
      w.run('DELETE FROM devices WHERE id = ?', [id]);
      w.run('DELETE FROM device_credentials WHERE device_id = ?', [id]);
      this.mqttCredentials.clear();
      deleteEntityDependents(this.ctx, w, 'DEVICE', id);
      w.run('DELETE FROM rpc WHERE device_id = ?', [id]);
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

  /** ThingsBoard's public customer ("Public", additionalInfo.isPublic), created on first use. */
  async assignToPublicCustomer(deviceId: string, actor: Principal): Promise<Device> {
    return this.toDevice(await this.rows.assignToPublicCustomer(deviceId, actor));
  }

  /** The device types (profile names) in use. */
  types(): EntitySubtype[] {
    return this.rows.types();
  }

  /**
   * ThingsBoard's assign-to-tenant moves a device to another tenant, without its customer and relations.
   * Sandboard holds one tenant: the device is moved to it, which has the same effect.
   */
  async assignToTenant(tenantId: string, deviceId: string, actor: Principal): Promise<Device> {
    requireTenantAdmin(actor);
    this.rows.require(deviceId);
    if (tenantId !== this.ctx.tenantId) throw badRequestParams('Could not find the specified Tenant!');
    await this.ctx.db.write((w) => {
      w.run('UPDATE devices SET customer_id = NULL WHERE id = ?', [deviceId]);
      w.run('DELETE FROM relations WHERE from_id = ? OR to_id = ?', [deviceId, deviceId]);
    });
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
        narrow: { from: 'FROM devices e', key: 'e.num' },
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
      credentialsType: row.credentials_type,
      credentialsId: row.credentials_id,
      credentialsValue: row.credentials_value ?? null,
    };
  }

  async saveCredentials(
    deviceId: string,
    input: SaveDeviceCredentialsRequest,
    actor: Principal,
  ): Promise<DeviceCredentials> {
    requireTenantAdmin(actor);
    const before = this.getCredentials(deviceId, actor);
    const next = requestedCredentials(input);
    try {
      await this.ctx.db.write((w) => this.writeCredentials(w, deviceId, next));
    } catch (err) {
      if (isUniqueViolation(err))
        throw invalidArgument('Device credentials are already assigned to another device!');
      throw err;
    }
    this.ctx.events.emit('credentialsChanged', {
      deviceId,
      oldToken: before.credentialsId,
      newToken: credentialColumns(next)[1],
    });
    return this.getCredentials(deviceId, actor);
  }

  /**
   * A gateway's connect for a device: the device is found by name (unchanged, but for
   * lastConnectedGateway) or created with the named profile, a Created relation from the gateway and
   * the gateway's customer. limit > 0 caps the number of devices.
   */
  /**
   * A device a gateway announces (v1/gateway/connect or its first message), created if it does not
   * exist. Announcements are queued and created in chunks, at most a few milliseconds of the event loop
   * at a time and many devices in one store write, so a gateway announcing thousands of devices keeps
   * no CONNECT or HTTP request of anyone else waiting.
   */
  async connectViaGateway(gateway: DeviceRow, name: string, type: string, limit: number): Promise<DeviceRow> {
    const known = this.findRowByName(name);
    if (known && parseJson(known.additional_info).lastConnectedGateway === gateway.id) return known;
    return new Promise((resolve, reject) =>
      this.gatewayDevices.add({ gateway, name, type, limit, resolve, reject }),
    );
  }

  private readonly gatewayDevices = new ChunkedQueue<GatewayDeviceRequest>((chunk) =>
    this.createChunk(chunk),
  );

  /** One chunk of gateway announcements in one store write; each settles once that write is durable. */
  private async createChunk(chunk: GatewayDeviceRequest[]): Promise<void> {
    try {
      if (chunk.some((r) => !this.findRowByName(r.name))) await this.storage?.admit();
    } catch (err) {
      for (const r of chunk) r.reject(err);
      return;
    }
    const outcomes: { request: GatewayDeviceRequest; id?: string; created?: boolean; error?: unknown }[] = [];
    let taken = chunk.length;
    try {
      await this.ctx.db.write((w) => {
        let count: number | undefined;
        const until = performance.now() + GATEWAY_DEVICES_SLICE_MS;
        for (const [i, request] of chunk.entries()) {
          if (i > 0 && performance.now() > until) {
            taken = i;
            this.gatewayDevices.putBack(chunk.slice(i));
            break;
          }
          try {
            const { id, created } = this.writeGatewayDevice(w, request, () => {
              count ??= Number(w.get<{ n: number }>('SELECT COUNT(*) AS n FROM devices')?.n ?? 0);
              return count++;
            });
            outcomes.push({ request, id, created });
          } catch (err) {
            if (!(err instanceof DeviceLimitError)) throw err;
            outcomes.push({ request, error: err });
          }
        }
      });
    } catch (err) {
      for (const r of chunk.slice(0, taken)) r.reject(err);
      return;
    }
    for (const o of outcomes) {
      if (o.error !== undefined || !o.id) {
        o.request.reject(o.error);
        continue;
      }
      if (o.created) this.ctx.events.emit('deviceSaved', { deviceId: o.id, created: true });
      const row = this.findRow(o.id);
      if (row) o.request.resolve(row);
      else o.request.reject(new Error(`Device '${o.request.name}' was deleted`));
    }
  }

  /** Inside the chunk's write: the device by name, pointed at its gateway, or created (DeviceLimitError first). */
  private writeGatewayDevice(
    w: Writer,
    { gateway, name, type, limit }: GatewayDeviceRequest,
    devicesSoFar: () => number,
  ): { id: string; created: boolean } {
    const existing = w.get<DeviceRow>('SELECT * FROM devices WHERE name = ?', [name]);
    if (existing) {
      const info = parseJson(existing.additional_info);
      if (info.lastConnectedGateway !== gateway.id) {
        w.run('UPDATE devices SET additional_info = ? WHERE id = ?', [
          JSON.stringify({ ...info, lastConnectedGateway: gateway.id }),
          existing.id,
        ]);
      }
      return { id: existing.id, created: false };
    }
    if (limit > 0 && devicesSoFar() >= limit) throw new DeviceLimitError(limit);
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
    return { id: newId, created: true };
  }

  /**
   * Whether a device belongs to a gateway: the gateway created it (a relation from it) or it is
   * assigned to it (a relation from it, or additionalInfo.lastConnectedGateway naming it).
   */
  belongsToGateway(gatewayId: string, device: DeviceRow): boolean {
    if (parseJson(device.additional_info).lastConnectedGateway === gatewayId) return true;
    return (
      this.ctx.db.get(
        "SELECT 1 FROM relations WHERE from_id = ? AND from_type = 'DEVICE' AND to_id = ? AND to_type = 'DEVICE' LIMIT 1",
        [gatewayId, device.id],
      ) !== undefined
    );
  }

  count(filter: { gateway?: boolean } = {}): number {
    const sql = filter.gateway
      ? `SELECT COUNT(*) AS n FROM devices WHERE json_extract(additional_info, '$.gateway') IN (1, 'true')`
      : 'SELECT COUNT(*) AS n FROM devices';
    return Number(this.ctx.db.get<{ n: number }>(sql)?.n ?? 0);
  }

  /** Replaces a device's credentials inside the caller's write (the caller emits credentialsChanged). */
  writeCredentials(w: Writer, deviceId: string, credentials: string | NewCredentials): void {
    const c = asCredentials(credentials);
    this.mqttCredentials.clear();
    w.run(
      'UPDATE device_credentials SET credentials_type = ?, credentials_id = ?, credentials_value = ? WHERE device_id = ?',
      [...credentialColumns(c), deviceId],
    );
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

const asCredentials = (c: string | NewCredentials): NewCredentials =>
  typeof c === 'string' ? { type: 'ACCESS_TOKEN', token: c } : c;

/** The credentials id new credentials get: the token, or the id derived from MQTT basic credentials. */
export const credentialsIdOf = (c: NewCredentials): string => credentialColumns(c)[1];

/** credentials_type, credentials_id, credentials_value of new credentials. */
function credentialColumns(c: NewCredentials): [CredentialsType, string, string | null] {
  if (c.type === 'ACCESS_TOKEN') return ['ACCESS_TOKEN', c.token, null];
  return ['MQTT_BASIC', mqttBasicCredentialsId(c.basic), JSON.stringify(c.basic)];
}

/** A credentials save request as new credentials, checked as ThingsBoard checks it. */
export function requestedCredentials(input: SaveDeviceCredentialsRequest): NewCredentials {
  if (input.credentialsType === 'MQTT_BASIC') {
    const basic = parseBasic(input.credentialsValue ?? null);
    if (!basic) throw invalidArgument('Invalid credentials body for simple mqtt credentials!');
    return { type: 'MQTT_BASIC', basic };
  }
  const token = input.credentialsId ?? '';
  if (!/^\S+$/.test(token) || token.length > 255)
    throw invalidArgument("'credentialsId' (the access token) must be 1..255 characters without spaces");
  return { type: 'ACCESS_TOKEN', token };
}

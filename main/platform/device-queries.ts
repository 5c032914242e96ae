import type { PageData, PageQuery } from '../../shared/schemas/common.ts';
import type { Device, DeviceInfo, DeviceSearchQuery, EntitySubtype } from '../../shared/schemas/entities.ts';
import type { Row } from '../store/durable-db.ts';
import { requireCustomerAccess, type Principal } from './auth/principal.ts';
import type { PlatformContext } from './context.ts';
import type { DeviceRow, DeviceService } from './devices.ts';
import type { EntityDirectory } from './entity-directory.ts';
import { badRequestParams, invalidArgument, notFound } from './errors.ts';
import { queryPage, rowsByIds } from './paging.ts';

export interface DeviceInfoFilter {
  customerId?: string;
  edgeId?: string;
  type?: string;
  deviceProfileId?: string;
  active?: boolean;
  /** createdTime bounds (edge devices: ThingsBoard's TimePageLink) */
  startTime?: number;
  endTime?: number;
}

type InfoRow = DeviceRow & {
  customer_title: string | null;
  customer_public: number | null;
  profile_name: string | null;
  active_v: number | null;
};

export const DEVICE_INFO_SORT = [
  'createdTime',
  'name',
  'type',
  'label',
  'deviceProfileName',
  'customerTitle',
] as const;

/** Entities a relation search visits before it stops: relations form graphs, not lists. */
const SEARCH_MAX_VISITED = 100_000;

/** Device reads beyond the device itself: infos, lists by id, types and relation searches. */
export class DeviceQueries {
  private readonly ctx: PlatformContext;
  private readonly devices: DeviceService;
  private readonly directory: EntityDirectory;

  constructor(ctx: PlatformContext, devices: DeviceService, directory: EntityDirectory) {
    this.ctx = ctx;
    this.devices = devices;
    this.directory = directory;
  }

  private toInfo(row: InfoRow): DeviceInfo {
    return {
      ...this.devices.toDevice(row),
      customerTitle: row.customer_title,
      customerIsPublic: row.customer_public === 1,
      deviceProfileName: row.profile_name ?? row.type,
      active: row.active_v === 1,
    };
  }

  private static readonly SELECT = `e.*, c.title AS customer_title,
    json_extract(c.additional_info, '$.isPublic') AS customer_public, p.name AS profile_name, a.v AS active_v`;
  private static readonly FROM = `FROM devices e
    LEFT JOIN customers c ON c.id = e.customer_id
    LEFT JOIN device_profiles p ON p.id = e.device_profile_id
    LEFT JOIN attributes a ON a.entity_id = e.id AND a.scope = 'SERVER_SCOPE' AND a.key = 'active' AND a.t = 'b'`;

  info(id: string, actor: Principal): DeviceInfo {
    const row = this.ctx.db.get<InfoRow>(
      `SELECT ${DeviceQueries.SELECT} ${DeviceQueries.FROM} WHERE e.id = ?`,
      [id],
    );
    if (!row) throw notFound(`Device with id [${id}] is not found`);
    requireCustomerAccess(actor, row.customer_id);
    return this.toInfo(row);
  }

  /** ThingsBoard's DeviceInfoFilter: type wins over deviceProfileId, as there. */
  infoPage(q: PageQuery, filter: DeviceInfoFilter): PageData<DeviceInfo> {
    const where: string[] = [];
    const params: (string | number)[] = [];
    let from = DeviceQueries.FROM;
    // the count and the search read devices alone unless a condition needs a joined table
    const narrow =
      filter.edgeId || filter.active !== undefined ? undefined : { from: 'FROM devices e', key: 'e.num' };
    if (filter.edgeId) {
      from += ` JOIN relations r ON r.to_id = e.id AND r.to_type = 'DEVICE' AND r.type = 'Contains'
        AND r.type_group = 'EDGE' AND r.from_type = 'EDGE' AND r.from_id = ?`;
      params.push(filter.edgeId);
    }
    if (filter.customerId) {
      where.push('e.customer_id = ?');
      params.push(filter.customerId);
    }
    if (filter.type) {
      where.push('e.type = ?');
      params.push(filter.type);
    } else if (filter.deviceProfileId) {
      where.push('e.device_profile_id = ?');
      params.push(filter.deviceProfileId);
    }
    if (filter.active !== undefined) where.push(filter.active ? 'a.v = 1' : '(a.v IS NULL OR a.v = 0)');
    if (filter.startTime !== undefined) {
      where.push('e.created_time >= ?');
      params.push(filter.startTime);
    }
    if (filter.endTime !== undefined) {
      where.push('e.created_time <= ?');
      params.push(filter.endTime);
    }
    return queryPage(
      this.ctx.db,
      {
        columns: DeviceQueries.SELECT,
        from,
        where,
        params,
        searchColumn: 'e.name',
        sortColumns: {
          createdTime: 'e.created_time',
          name: 'e.name',
          type: 'e.type',
          label: 'e.label',
          deviceProfileName: 'p.name',
          customerTitle: 'c.title',
        },
        defaultSort: 'createdTime',
        ...(narrow ? { narrow } : {}),
      },
      q,
      (r: Row) => this.toInfo(r as unknown as InfoRow),
    );
  }

  /** The devices among ids that the actor may see (others, and unknown ids, are left out). */
  byIds(ids: string[], actor: Principal): Device[] {
    const customer = actor.authority === 'TENANT_ADMIN' ? null : actor.customerId;
    if (actor.authority !== 'TENANT_ADMIN' && !customer) return [];
    return rowsByIds<DeviceRow>(
      this.ctx.db,
      'devices',
      ids,
      customer ? { column: 'customer_id', value: customer } : undefined,
    ).map((r) => this.devices.toDevice(r));
  }

  types(): EntitySubtype[] {
    return this.devices.types();
  }

  /**
   * Devices of a profile without an OTA package of the type: Sandboard keeps no OTA packages, so every
   * device of the profile counts.
   */
  countWithoutOtaPackage(otaPackageType: string, deviceProfileId: string): number {
    if (otaPackageType !== 'FIRMWARE' && otaPackageType !== 'SOFTWARE')
      throw badRequestParams(`OtaPackageType "${otaPackageType}" is not supported: FIRMWARE or SOFTWARE`);
    const column = otaPackageType === 'FIRMWARE' ? 'firmware_id' : 'software_id';
    return Number(
      this.ctx.db.get<{ n: number }>(
        `SELECT COUNT(*) AS n FROM devices WHERE device_profile_id = ? AND ${column} IS NULL`,
        [deviceProfileId],
      )?.n ?? 0,
    );
  }

  /** ThingsBoard's findDevicesByQuery: devices reached from the root over relations of a type. */
  search(query: DeviceSearchQuery, actor: Principal): Device[] {
    const p = query.parameters;
    const rootType = p.rootType.toUpperCase();
    this.directory.require({ entityType: rootType, id: p.rootId }, actor);
    const group = p.relationTypeGroup ?? 'COMMON';
    const maxLevel = p.maxLevel && p.maxLevel > 0 ? p.maxLevel : Number.POSITIVE_INFINITY;
    const [near, far] = p.direction === 'FROM' ? ['from', 'to'] : ['to', 'from'];
    const found = new Map<string, number>(); // device id -> level it was reached at
    const visited = new Set<string>([`${rootType}:${p.rootId}`]);
    let frontier = [{ id: p.rootId, type: rootType }];
    for (let level = 1; frontier.length > 0 && level <= maxLevel; level++) {
      const next: { id: string; type: string }[] = [];
      for (const node of frontier) {
        const related = this.ctx.db.all<{ id: string; type: string; rel: string }>(
          `SELECT ${far}_id AS id, ${far}_type AS type, type AS rel FROM relations
           WHERE ${near}_id = ? AND ${near}_type = ? AND type_group = ?`,
          [node.id, node.type, group],
        );
        for (const r of related) {
          const key = `${r.type}:${r.id}`;
          if (
            r.type === 'DEVICE' &&
            !found.has(r.id) &&
            (!query.relationType || r.rel === query.relationType)
          )
            found.set(r.id, level);
          if (visited.has(key)) continue;
          visited.add(key);
          if (visited.size > SEARCH_MAX_VISITED)
            throw invalidArgument(`The relation search reaches more than ${SEARCH_MAX_VISITED} entities`);
          next.push({ id: r.id, type: r.type });
        }
      }
      frontier = next;
    }
    const lastLevel = Math.max(0, ...found.values());
    const ids = [...found]
      .filter(([, level]) => !p.fetchLastLevelOnly || level === lastLevel)
      .map(([id]) => id);
    const types = new Set(query.deviceTypes);
    return this.byIds(ids, actor).filter((d) => types.has(d.type));
  }
}

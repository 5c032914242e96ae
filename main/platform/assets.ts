import { randomUUID } from 'node:crypto';
import type { PageData, PageQuery } from '../../shared/schemas/common.ts';
import type { Asset, AssetInfo, EntitySubtype, SaveAssetRequest } from '../../shared/schemas/assets.ts';
import type { SearchDirection } from '../../shared/schemas/relations.ts';
import type { Param, Row, Writer } from '../store/durable-db.ts';
import type { AssetProfileService } from './asset-profiles.ts';
import { requireTenantAdmin, type Principal } from './auth/principal.ts';
import { ref, type PlatformContext } from './context.ts';
import { deleteEntityDependents } from './entity-directory.ts';
import { badRequestParams, forbidden, isUniqueViolation, notFound } from './errors.ts';
import { entityName } from './names.ts';
import { OwnedEntityRows, requestedCustomerId } from './owned-entities.ts';
import { queryPage } from './paging.ts';
import type { RelationService } from './relations.ts';
import type { StoreBudget } from './store-budget.ts';

export interface AssetRow {
  id: string;
  created_time: number;
  name: string;
  type: string;
  label: string | null;
  asset_profile_id: string;
  customer_id: string | null;
  additional_info: string | null;
}

type AssetInfoRow = AssetRow & { customer_title: string | null; profile_name: string | null };

export const ASSET_SORT = [
  'createdTime',
  'name',
  'type',
  'label',
  'customerTitle',
  'assetProfileName',
] as const;

export interface AssetFilter {
  customerId?: string;
  type?: string;
  assetProfileId?: string;
  edgeId?: string;
}

/** ThingsBoard's AssetSearchQuery (POST /api/assets): assets of some types related to a root. */
export interface AssetSearchQuery {
  parameters: {
    rootId: string;
    rootType: string;
    direction: SearchDirection;
    maxLevel?: number;
    fetchLastLevelOnly?: boolean;
  };
  relationType?: string | null;
  assetTypes: string[];
}

const INFO_FROM = `FROM assets e LEFT JOIN customers c ON c.id = e.customer_id
  LEFT JOIN asset_profiles p ON p.id = e.asset_profile_id`;

/** Assets: buildings, lines, rooms... that devices and other assets relate to. */
export class AssetService {
  private readonly ctx: PlatformContext;
  private readonly profiles: AssetProfileService;
  private readonly relations: RelationService;
  private readonly storage: StoreBudget | undefined;
  private readonly rows: OwnedEntityRows<AssetRow>;

  constructor(
    ctx: PlatformContext,
    profiles: AssetProfileService,
    relations: RelationService,
    storage?: StoreBudget,
  ) {
    this.ctx = ctx;
    this.profiles = profiles;
    this.relations = relations;
    this.storage = storage;
    this.rows = new OwnedEntityRows(ctx, { table: 'assets', entityType: 'ASSET', label: 'Asset' });
  }

  toAsset(row: AssetRow): Asset {
    return {
      id: ref('ASSET', row.id),
      ...this.rows.commonFields(row),
      assetProfileId: ref('ASSET_PROFILE', row.asset_profile_id),
    };
  }

  private toInfo(row: AssetInfoRow): AssetInfo {
    return {
      ...this.toAsset(row),
      customerTitle: row.customer_title,
      customerIsPublic: false,
      assetProfileName: row.profile_name ?? row.type,
    };
  }

  findRow(id: string): AssetRow | undefined {
    return this.rows.find(id);
  }

  /** The asset a principal may see, or 404 / 403. */
  accessibleRow(id: string, actor: Principal): AssetRow {
    return this.rows.accessible(id, actor);
  }

  get(id: string, actor: Principal): Asset {
    return this.toAsset(this.accessibleRow(id, actor));
  }

  info(id: string, actor: Principal): AssetInfo {
    this.accessibleRow(id, actor);
    const row = this.ctx.db.get<AssetInfoRow>(
      `SELECT e.*, c.title AS customer_title, p.name AS profile_name ${INFO_FROM} WHERE e.id = ?`,
      [id],
    )!;
    return this.toInfo(row);
  }

  getByName(name: string, actor: Principal): Asset {
    return this.toAsset(this.rows.accessibleByName(name, actor));
  }

  /** The assets of these ids the principal may see (unknown ids are left out). */
  byIds(ids: string[], actor: Principal): Asset[] {
    const rows = this.ctx.db.all<AssetRow>(
      'SELECT * FROM assets WHERE id IN (SELECT value FROM json_each(?)) ORDER BY name',
      [JSON.stringify(ids)],
    );
    return rows
      .filter((r) => actor.authority === 'TENANT_ADMIN' || r.customer_id === actor.customerId)
      .map((r) => this.toAsset(r));
  }

  /** A tenant administrator creates and updates assets; a customer user may update its customer's. */
  async save(request: SaveAssetRequest, actor: Principal): Promise<Asset> {
    const input = { ...request, name: entityName(request.name, 'Asset name') };
    let customerId = requestedCustomerId(input);
    if (actor.authority !== 'TENANT_ADMIN') {
      if (!input.id?.id) throw forbidden();
      customerId = this.accessibleRow(input.id.id, actor).customer_id;
      // a type that names no profile would create one for the whole tenant
      if (
        !input.assetProfileId?.id &&
        input.type &&
        !this.ctx.db.get('SELECT 1 FROM asset_profiles WHERE name = ?', [input.type])
      )
        throw forbidden(
          `Asset profile '${input.type}' does not exist, and only a tenant administrator may create asset profiles`,
        );
    }
    if (customerId && !this.ctx.db.get('SELECT 1 FROM customers WHERE id = ?', [customerId])) {
      throw badRequestParams("Can't assign asset to non-existent customer!");
    }
    const info = JSON.stringify(input.additionalInfo ?? {});
    if (!input.id?.id) await this.storage?.admit();
    try {
      const id = await this.ctx.db.write((w) => {
        const profile = this.resolveProfile(w, input);
        if (input.id?.id) {
          const id = input.id.id;
          const n = w.run(
            'UPDATE assets SET name = ?, type = ?, label = ?, asset_profile_id = ?, customer_id = ?, additional_info = ? WHERE id = ?',
            [input.name, profile.name, input.label ?? null, profile.id, customerId, info, id],
          );
          if (n === 0) throw badRequestParams("Can't update non existing asset!");
          return id;
        }
        const id = randomUUID();
        w.run(
          `INSERT INTO assets (id, created_time, name, type, label, asset_profile_id, customer_id, additional_info)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          [id, this.ctx.now(), input.name, profile.name, input.label ?? null, profile.id, customerId, info],
        );
        return id;
      });
      return this.toAsset(this.findRow(id)!);
    } catch (err) {
      if (isUniqueViolation(err)) throw badRequestParams('Asset with such name already exists!');
      throw err;
    }
  }

  /** Deletes an asset with its attributes, time series, relations and alarms. */
  async delete(id: string, actor: Principal): Promise<AssetRow> {
    requireTenantAdmin(actor);
    const row = this.rows.require(id);
    await this.ctx.db.write((w) => {
      w.run('DELETE FROM assets WHERE id = ?', [id]);
      deleteEntityDependents(this.ctx, w, 'ASSET', id);
    });
    return row;
  }

  async assignToCustomer(assetId: string, customerId: string | null, actor: Principal): Promise<Asset> {
    requireTenantAdmin(actor);
    const row = this.rows.require(assetId);
    if (customerId && !this.ctx.db.get('SELECT 1 FROM customers WHERE id = ?', [customerId])) {
      throw notFound(`Customer with id [${customerId}] is not found`);
    }
    if (customerId === null && row.customer_id === null) {
      throw badRequestParams("Asset isn't assigned to any customer!");
    }
    await this.ctx.db.write((w) =>
      w.run('UPDATE assets SET customer_id = ? WHERE id = ?', [customerId, assetId]),
    );
    return this.toAsset(this.findRow(assetId)!);
  }

  /** Makes an asset public: assigns it to the tenant's public customer. */
  async assignToPublicCustomer(assetId: string, actor: Principal): Promise<Asset> {
    return this.toAsset(await this.rows.assignToPublicCustomer(assetId, actor));
  }

  page(q: PageQuery, filter: AssetFilter): PageData<Asset> {
    return this.pageOf(q, filter, 'e.*', (r) => this.toAsset(r));
  }

  infoPage(q: PageQuery, filter: AssetFilter): PageData<AssetInfo> {
    return this.pageOf(q, filter, 'e.*, c.title AS customer_title, p.name AS profile_name', (r) =>
      this.toInfo(r as AssetInfoRow),
    );
  }

  /** The asset types in use (ThingsBoard's EntitySubtype list), by name. */
  types(): EntitySubtype[] {
    return this.rows.types();
  }

  /** POST /api/assets: the assets of the given types related to a root, those the principal may see. */
  search(q: AssetSearchQuery, actor: Principal): Asset[] {
    const found = this.relations.query(
      {
        parameters: { ...q.parameters, relationTypeGroup: 'COMMON' },
        filters: [{ relationType: q.relationType ?? null, entityTypes: ['ASSET'] }],
      },
      actor,
    );
    const ids = found.map((r) => (q.parameters.direction === 'FROM' ? r.to.id : r.from.id));
    const types = new Set(q.assetTypes);
    return this.byIds([...new Set(ids)], actor).filter((a) => types.size === 0 || types.has(a.type));
  }

  count(customerId?: string): number {
    const sql = customerId
      ? 'SELECT COUNT(*) AS n FROM assets WHERE customer_id = ?'
      : 'SELECT COUNT(*) AS n FROM assets';
    return Number(this.ctx.db.get<{ n: number }>(sql, customerId ? [customerId] : [])?.n ?? 0);
  }

  private pageOf<T>(
    q: PageQuery,
    filter: AssetFilter,
    columns: string,
    map: (row: AssetRow) => T,
  ): PageData<T> {
    const where: string[] = [];
    const params: Param[] = [];
    let from = INFO_FROM;
    if (filter.edgeId) {
      from += ` JOIN relations r ON r.to_id = e.id AND r.to_type = 'ASSET' AND r.type = 'Contains' AND r.type_group = 'EDGE' AND r.from_type = 'EDGE'`;
      where.push('r.from_id = ?');
      params.push(filter.edgeId);
    }
    if (filter.customerId) {
      where.push('e.customer_id = ?');
      params.push(filter.customerId);
    }
    if (filter.type) {
      where.push('e.type = ?');
      params.push(filter.type);
    }
    if (filter.assetProfileId) {
      where.push('e.asset_profile_id = ?');
      params.push(filter.assetProfileId);
    }
    return queryPage(
      this.ctx.db,
      {
        from,
        where,
        params,
        searchColumn: 'e.name',
        sortColumns: {
          createdTime: 'e.created_time',
          name: 'e.name',
          type: 'e.type',
          label: 'e.label',
          customerTitle: 'c.title',
          assetProfileName: 'p.name',
        },
        defaultSort: 'createdTime',
        columns,
      },
      q,
      (r: Row) => map(r as unknown as AssetRow),
    );
  }

  private resolveProfile(w: Writer, input: SaveAssetRequest): { id: string; name: string } {
    if (input.assetProfileId?.id) {
      const row = w.get<{ id: string; name: string }>('SELECT id, name FROM asset_profiles WHERE id = ?', [
        input.assetProfileId.id,
      ]);
      if (!row) throw badRequestParams('Asset is referencing non existing asset profile!');
      return row;
    }
    if (input.type) return this.profiles.findOrCreate(w, input.type);
    const def = w.get<{ id: string; name: string }>(
      'SELECT id, name FROM asset_profiles WHERE is_default = 1',
    );
    return def ?? this.profiles.findOrCreate(w, 'default');
  }
}

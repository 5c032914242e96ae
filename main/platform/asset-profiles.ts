import { randomUUID } from 'node:crypto';
import type { PageData, PageQuery } from '../../shared/schemas/common.ts';
import type {
  AssetProfile,
  AssetProfileInfo,
  EntityInfo,
  SaveAssetProfileRequest,
} from '../../shared/schemas/assets.ts';
import type { Row, Writer } from '../store/durable-db.ts';
import { requireTenantAdmin, type Principal } from './auth/principal.ts';
import { ref, type PlatformContext } from './context.ts';
import { badRequestParams, isUniqueViolation, notFound } from './errors.ts';
import { entityName } from './names.ts';
import { queryPage } from './paging.ts';

export interface AssetProfileRow {
  id: string;
  created_time: number;
  name: string;
  description: string | null;
  image: string | null;
  is_default: number;
  default_rule_chain_id: string | null;
  default_dashboard_id: string | null;
  default_queue_name: string | null;
  default_edge_rule_chain_id: string | null;
}

export const ASSET_PROFILE_SORT = ['createdTime', 'name', 'description', 'isDefault'] as const;

/** Asset profiles: the type of an asset (an asset's `type` is its profile's name). */
export class AssetProfileService {
  private readonly ctx: PlatformContext;
  constructor(ctx: PlatformContext) {
    this.ctx = ctx;
  }

  toProfile(row: AssetProfileRow): AssetProfile {
    return {
      id: ref('ASSET_PROFILE', row.id),
      createdTime: row.created_time,
      tenantId: ref('TENANT', this.ctx.tenantId),
      name: row.name,
      description: row.description,
      image: row.image,
      default: row.is_default === 1,
      defaultRuleChainId: row.default_rule_chain_id ? ref('RULE_CHAIN', row.default_rule_chain_id) : null,
      defaultDashboardId: row.default_dashboard_id ? ref('DASHBOARD', row.default_dashboard_id) : null,
      defaultQueueName: row.default_queue_name,
      defaultEdgeRuleChainId: row.default_edge_rule_chain_id
        ? ref('RULE_CHAIN', row.default_edge_rule_chain_id)
        : null,
    };
  }

  toInfo(row: AssetProfileRow): AssetProfileInfo {
    return {
      id: ref('ASSET_PROFILE', row.id),
      tenantId: ref('TENANT', this.ctx.tenantId),
      name: row.name,
      image: row.image,
      defaultDashboardId: row.default_dashboard_id ? ref('DASHBOARD', row.default_dashboard_id) : null,
    };
  }

  findRow(id: string): AssetProfileRow | undefined {
    return this.ctx.db.get<AssetProfileRow>('SELECT * FROM asset_profiles WHERE id = ?', [id]);
  }

  defaultRow(): AssetProfileRow | undefined {
    return this.ctx.db.get<AssetProfileRow>('SELECT * FROM asset_profiles WHERE is_default = 1');
  }

  /** Finds a profile by name or creates it, inside the caller's write (an asset's type names one). */
  findOrCreate(w: Writer, name: string): AssetProfileRow {
    const existing = w.get<AssetProfileRow>('SELECT * FROM asset_profiles WHERE name = ?', [name]);
    if (existing) return existing;
    const id = randomUUID();
    w.run('INSERT INTO asset_profiles (id, created_time, name) VALUES (?, ?, ?)', [id, this.ctx.now(), name]);
    return w.get<AssetProfileRow>('SELECT * FROM asset_profiles WHERE id = ?', [id])!;
  }

  /** The tenant's default profile ("default"), as ThingsBoard creates with every tenant. */
  async seedDefault(): Promise<void> {
    if (this.defaultRow()) return;
    await this.ctx.db.write((w) => {
      const row = this.findOrCreate(w, 'default');
      w.run('UPDATE asset_profiles SET is_default = 1, description = ? WHERE id = ?', [
        'Default asset profile',
        row.id,
      ]);
    });
  }

  get(id: string): AssetProfile {
    const row = this.findRow(id);
    if (!row) throw notFound(`Asset profile with id [${id}] is not found`);
    return this.toProfile(row);
  }

  info(id: string): AssetProfileInfo {
    const row = this.findRow(id);
    if (!row) throw notFound(`Asset profile with id [${id}] is not found`);
    return this.toInfo(row);
  }

  defaultInfo(): AssetProfileInfo {
    const row = this.defaultRow();
    if (!row) throw notFound('No default asset profile');
    return this.toInfo(row);
  }

  infosByIds(ids: string[]): AssetProfileInfo[] {
    return this.ctx.db
      .all<AssetProfileRow>(
        'SELECT * FROM asset_profiles WHERE id IN (SELECT value FROM json_each(?)) ORDER BY name',
        [JSON.stringify(ids)],
      )
      .map((r) => this.toInfo(r));
  }

  /** Profile names; activeOnly keeps those some asset uses. */
  names(activeOnly: boolean): EntityInfo[] {
    const sql = activeOnly
      ? 'SELECT id, name FROM asset_profiles p WHERE EXISTS (SELECT 1 FROM assets a WHERE a.asset_profile_id = p.id) ORDER BY name'
      : 'SELECT id, name FROM asset_profiles ORDER BY name';
    return this.ctx.db
      .all<{ id: string; name: string }>(sql)
      .map((r) => ({ id: ref('ASSET_PROFILE', r.id), name: r.name }));
  }

  async save(request: SaveAssetProfileRequest, actor: Principal): Promise<AssetProfile> {
    await this.ctx.admit?.();
    requireTenantAdmin(actor);
    const input = { ...request, name: entityName(request.name, 'Asset profile name') };
    const id = input.id?.id ?? randomUUID();
    const values = [
      input.name,
      input.description ?? null,
      input.image ?? null,
      input.defaultRuleChainId?.id ?? null,
      input.defaultDashboardId?.id ?? null,
      input.defaultQueueName ?? null,
      input.defaultEdgeRuleChainId?.id ?? null,
    ];
    for (const chain of [input.defaultRuleChainId, input.defaultEdgeRuleChainId]) {
      if (chain && !this.ctx.db.get('SELECT 1 FROM rule_chains WHERE id = ?', [chain.id])) {
        throw badRequestParams("Can't assign non-existent rule chain!");
      }
    }
    try {
      await this.ctx.db.write((w) => {
        if (input.id) {
          const before = w.get<AssetProfileRow>('SELECT * FROM asset_profiles WHERE id = ?', [id]);
          if (!before) throw badRequestParams("Can't update non existing asset profile!");
          w.run(
            `UPDATE asset_profiles SET name = ?, description = ?, image = ?, default_rule_chain_id = ?,
             default_dashboard_id = ?, default_queue_name = ?, default_edge_rule_chain_id = ? WHERE id = ?`,
            [...values, id],
          );
          if (before.name !== input.name)
            w.run('UPDATE assets SET type = ? WHERE asset_profile_id = ?', [input.name, id]);
        } else {
          w.run(
            `INSERT INTO asset_profiles (id, created_time, name, description, image, default_rule_chain_id,
             default_dashboard_id, default_queue_name, default_edge_rule_chain_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            [id, this.ctx.now(), ...values],
          );
        }
        if (input.default) this.makeDefault(w, id);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw badRequestParams('Asset profile with such name already exists!');
      throw err;
    }
    this.ctx.events.emit('profileChanged', { profileId: id });
    return this.get(id);
  }

  async setDefault(id: string, actor: Principal): Promise<AssetProfile> {
    requireTenantAdmin(actor);
    if (!this.findRow(id)) throw notFound(`Asset profile with id [${id}] is not found`);
    await this.ctx.db.write((w) => this.makeDefault(w, id));
    return this.get(id);
  }

  async delete(id: string, actor: Principal): Promise<void> {
    requireTenantAdmin(actor);
    const row = this.findRow(id);
    if (!row) throw notFound(`Asset profile with id [${id}] is not found`);
    if (row.is_default) throw badRequestParams('Deletion of Default Asset Profile is prohibited!');
    if (this.ctx.db.get('SELECT 1 FROM assets WHERE asset_profile_id = ? LIMIT 1', [id])) {
      throw badRequestParams('The asset profile referenced by the assets cannot be deleted!');
    }
    await this.ctx.db.write((w) => {
      w.run('DELETE FROM asset_profiles WHERE id = ?', [id]);
      w.run("DELETE FROM relations WHERE to_id = ? AND to_type = 'ASSET_PROFILE'", [id]);
    });
  }

  page(q: PageQuery): PageData<AssetProfile> {
    return this.pageOf(q, (r) => this.toProfile(r));
  }

  infoPage(q: PageQuery): PageData<AssetProfileInfo> {
    return this.pageOf(q, (r) => this.toInfo(r));
  }

  private pageOf<T>(q: PageQuery, map: (row: AssetProfileRow) => T): PageData<T> {
    return queryPage(
      this.ctx.db,
      {
        from: 'FROM asset_profiles e',
        where: [],
        params: [],
        searchColumn: 'e.name',
        sortColumns: {
          createdTime: 'e.created_time',
          name: 'e.name',
          description: 'e.description',
          isDefault: 'e.is_default',
        },
        defaultSort: 'createdTime',
      },
      q,
      (r: Row) => map(r as unknown as AssetProfileRow),
    );
  }

  private makeDefault(w: Writer, id: string): void {
    w.run('UPDATE asset_profiles SET is_default = CASE WHEN id = ? THEN 1 ELSE 0 END', [id]);
  }
}

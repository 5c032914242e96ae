import { randomUUID } from 'node:crypto';
import type { PageData, PageQuery } from '../../shared/schemas/common.ts';
import type { SaveTableViewRequest, TableView, TableViewConfig } from '../../shared/schemas/table-view.ts';
import { requireTenantAdmin, type Principal } from '../platform/auth/principal.ts';
import { ref, type PlatformContext } from '../platform/context.ts';
import { invalidArgument, notFound } from '../platform/errors.ts';
import { queryPage } from '../platform/paging.ts';
import type { Row } from '../store/durable-db.ts';
import { columnLabels, validateConfig } from './report-spec.ts';

interface TableViewRow {
  id: string;
  created_time: number;
  name: string;
  config: string;
}

/** Saved table views (the `table_views` table): what a report runs. */
export class TableViewService {
  private readonly ctx: PlatformContext;
  constructor(ctx: PlatformContext) {
    this.ctx = ctx;
  }

  private toView(row: TableViewRow): TableView {
    const config = JSON.parse(row.config) as TableViewConfig;
    return {
      id: ref('TABLE_VIEW', row.id),
      createdTime: row.created_time,
      name: row.name,
      config,
      columnLabels: columnLabels(config),
    };
  }

  /** The view, or 404 naming the id. */
  get(id: string): TableView {
    const row = this.ctx.db.get<TableViewRow>('SELECT * FROM table_views WHERE id = ?', [id]);
    if (!row) throw notFound(`Table view with id [${id}] is not found`);
    return this.toView(row);
  }

  findByName(name: string): TableView | undefined {
    const row = this.ctx.db.get<TableViewRow>(
      'SELECT * FROM table_views WHERE name = ? ORDER BY created_time LIMIT 1',
      [name],
    );
    return row ? this.toView(row) : undefined;
  }

  page(q: PageQuery): PageData<TableView> {
    return queryPage(
      this.ctx.db,
      {
        from: 'FROM table_views e',
        where: [],
        params: [],
        searchColumn: 'e.name',
        sortColumns: { createdTime: 'e.created_time', name: 'e.name' },
        defaultSort: 'createdTime',
      },
      q,
      (r: Row) => this.toView(r as unknown as TableViewRow),
    );
  }

  /** Checks a definition, including that its profiles and devices exist; 400 names the field. */
  checkConfig(config: TableViewConfig, path = 'config'): void {
    validateConfig(config, path);
    const missing = (table: string, ids: string[]) => {
      if (ids.length === 0) return [];
      const found = new Set(
        this.ctx.db
          .all<{ id: string }>(`SELECT id FROM ${table} WHERE id IN (SELECT value FROM json_each(?))`, [
            JSON.stringify(ids),
          ])
          .map((r) => r.id),
      );
      return ids.map((id, i) => [id, i] as const).filter(([id]) => !found.has(id));
    };
    const [profile] = missing('device_profiles', config.entities.deviceProfileIds ?? []);
    if (profile)
      throw invalidArgument(
        `'${path}.entities.deviceProfileIds[${profile[1]}]': device profile [${profile[0]}] is not found`,
      );
    const [device] = missing('devices', config.entities.deviceIds ?? []);
    if (device)
      throw invalidArgument(`'${path}.entities.deviceIds[${device[1]}]': device [${device[0]}] is not found`);
  }

  /** Creates a view, or replaces the one named by input.id. */
  async save(input: SaveTableViewRequest, actor: Principal): Promise<TableView> {
    await this.ctx.admit?.();
    requireTenantAdmin(actor);
    this.checkConfig(input.config);
    const config = JSON.stringify(input.config);
    const id = input.id?.id ?? randomUUID();
    await this.ctx.db.write((w) => {
      if (input.id) {
        const n = w.run('UPDATE table_views SET name = ?, config = ? WHERE id = ?', [input.name, config, id]);
        if (n === 0) throw notFound(`Table view with id [${id}] is not found`);
      } else {
        w.run('INSERT INTO table_views (id, created_time, name, config) VALUES (?, ?, ?, ?)', [
          id,
          this.ctx.now(),
          input.name,
          config,
        ]);
      }
    });
    return this.get(id);
  }

  async delete(id: string, actor: Principal): Promise<void> {
    requireTenantAdmin(actor);
    const n = await this.ctx.db.write((w) => w.run('DELETE FROM table_views WHERE id = ?', [id]));
    if (n === 0) throw notFound(`Table view with id [${id}] is not found`);
  }
}

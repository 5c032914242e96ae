import { randomUUID } from 'node:crypto';
import type { PageData, PageQuery } from '../../shared/schemas/common.ts';
import {
  DASHBOARD_MAX_BYTES,
  type Dashboard,
  type DashboardInfo,
  type HomeDashboard,
  type HomeDashboardInfo,
  type SaveDashboardRequest,
  type ShortCustomerInfo,
} from '../../shared/schemas/dashboards.ts';
import type { Param, Row, Writer } from '../store/durable-db.ts';
import { requireTenantAdmin, type Principal } from './auth/principal.ts';
import { ref, type PlatformContext } from './context.ts';
import { ensurePublicCustomer } from './customers.ts';
import { deleteEntityDependents } from './entity-directory.ts';
import { ErrorCode, PlatformError, forbidden, notFound } from './errors.ts';
import { parseJson, queryPage } from './paging.ts';

export interface DashboardRow {
  id: string;
  created_time: number;
  title: string;
  image: string | null;
  mobile_hide: number;
  mobile_order: number | null;
  configuration: string | null;
  version: number;
}

export const DASHBOARD_SORT = ['createdTime', 'title'] as const;

export interface DashboardFilter {
  customerId?: string;
  edgeId?: string;
  /** leave out dashboards hidden for mobile */
  mobile?: boolean;
}

/** Where ThingsBoard keeps a home dashboard: in the additionalInfo of a user, customer or tenant. */
export const HOME_DASHBOARD_ID = 'homeDashboardId';
export const HOME_DASHBOARD_HIDE_TOOLBAR = 'homeDashboardHideToolbar';

const INFO_COLUMNS = 'e.id, e.created_time, e.title, e.image, e.mobile_hide, e.mobile_order, e.version';

export const dashboardTooLarge = (bytes: number) =>
  new PlatformError(
    413,
    ErrorCode.BAD_REQUEST_PARAMS,
    `Dashboard is too large: ${bytes} bytes of title, image and configuration, at most ${DASHBOARD_MAX_BYTES}`,
  );

const rowBytes = (row: DashboardRow) =>
  Buffer.byteLength(row.title) +
  (row.image ? Buffer.byteLength(row.image) : 0) +
  (row.configuration ? Buffer.byteLength(row.configuration) : 0);

const versionConflict = () =>
  new PlatformError(409, ErrorCode.VERSION_CONFLICT, 'Dashboard was already changed by someone else');

/**
 * ThingsBoard's dashboards: the tenant's, each assigned to any number of customers (the public one
 * included) and edges. The configuration is kept as the client sent it, so an exported dashboard
 * imports unchanged; every save raises its version, and a save naming an older version is refused.
 */
export class DashboardService {
  private readonly ctx: PlatformContext;

  constructor(ctx: PlatformContext) {
    this.ctx = ctx;
  }

  findRow(id: string): DashboardRow | undefined {
    return this.ctx.db.get<DashboardRow>('SELECT * FROM dashboards WHERE id = ?', [id]);
  }

  private requireRow(id: string): DashboardRow {
    const row = this.findRow(id);
    if (!row) throw notFound(`Dashboard with id [${id}] is not found`);
    return row;
  }

  /** Whether a customer user's customer has the dashboard. */
  isAssigned(dashboardId: string, customerId: string | null): boolean {
    return (
      customerId !== null &&
      this.ctx.db.get('SELECT 1 FROM dashboard_customers WHERE dashboard_id = ? AND customer_id = ?', [
        dashboardId,
        customerId,
      ]) !== undefined
    );
  }

  /** The row a principal may read: a customer user only a dashboard assigned to its customer. */
  private accessibleRow(id: string, actor: Principal): DashboardRow {
    const row = this.requireRow(id);
    if (actor.authority !== 'TENANT_ADMIN' && !this.isAssigned(id, actor.customerId)) throw forbidden();
    return row;
  }

  private customersOf(ids: string[]): Map<string, ShortCustomerInfo[]> {
    const byDashboard = new Map<string, ShortCustomerInfo[]>();
    if (ids.length === 0) return byDashboard;
    const rows = this.ctx.db.all<{ dashboard_id: string; id: string; title: string; info: string | null }>(
      `SELECT dc.dashboard_id, c.id, c.title, c.additional_info AS info FROM dashboard_customers dc
       JOIN customers c ON c.id = dc.customer_id
       WHERE dc.dashboard_id IN (SELECT value FROM json_each(?)) ORDER BY c.title`,
      [JSON.stringify(ids)],
    );
    for (const r of rows) {
      const isPublic = parseJson(r.info).isPublic;
      const list = byDashboard.get(r.dashboard_id) ?? [];
      list.push({
        customerId: ref('CUSTOMER', r.id),
        title: r.title,
        public: isPublic === true || isPublic === 'true',
      });
      byDashboard.set(r.dashboard_id, list);
    }
    return byDashboard;
  }

  private toInfo(row: DashboardRow, customers: ShortCustomerInfo[] | undefined): DashboardInfo {
    return {
      id: ref('DASHBOARD', row.id),
      createdTime: row.created_time,
      tenantId: ref('TENANT', this.ctx.tenantId),
      title: row.title,
      name: row.title,
      image: row.image,
      assignedCustomers: customers ?? [],
      mobileHide: row.mobile_hide !== 0,
      mobileOrder: row.mobile_order,
      version: row.version,
    };
  }

  private toDashboard(row: DashboardRow): Dashboard {
    return {
      ...this.toInfo(row, this.customersOf([row.id]).get(row.id)),
      configuration: row.configuration === null ? null : parseJson(row.configuration),
      resources: null,
    };
  }

  get(id: string, actor: Principal): Dashboard {
    return this.toDashboard(this.accessibleRow(id, actor));
  }

  info(id: string, actor: Principal): DashboardInfo {
    const row = this.accessibleRow(id, actor);
    return this.toInfo(row, this.customersOf([id]).get(id));
  }

  /** The dashboards among ids the principal may read (unknown ones left out). */
  infosByIds(ids: string[], actor: Principal): DashboardInfo[] {
    const rows = this.ctx.db
      .all<DashboardRow>(
        `SELECT ${INFO_COLUMNS} FROM dashboards e WHERE e.id IN (SELECT value FROM json_each(?)) ORDER BY e.title`,
        [JSON.stringify(ids)],
      )
      .filter((r) => actor.authority === 'TENANT_ADMIN' || this.isAssigned(r.id, actor.customerId));
    const customers = this.customersOf(rows.map((r) => r.id));
    return rows.map((r) => this.toInfo(r, customers.get(r.id)));
  }

  /** Creates or updates a dashboard (tenant administrators only); 409 when its version is not the stored one. */
  async save(request: SaveDashboardRequest, actor: Principal): Promise<Dashboard> {
    requireTenantAdmin(actor);
    const configuration =
      request.configuration === undefined || request.configuration === null
        ? null
        : JSON.stringify(request.configuration);
    const image = request.image ?? null;
    const bytes =
      Buffer.byteLength(request.title) +
      (image ? Buffer.byteLength(image) : 0) +
      (configuration ? Buffer.byteLength(configuration) : 0);
    if (bytes > DASHBOARD_MAX_BYTES) throw dashboardTooLarge(bytes);
    const id = request.id?.id;
    const values = [
      request.title,
      image,
      request.mobileHide ? 1 : 0,
      request.mobileOrder ?? null,
      configuration,
    ] satisfies Param[];
    if (id) {
      const existing = this.requireRow(id);
      if (request.version !== undefined && request.version !== null && request.version !== existing.version)
        throw versionConflict();
      // a dashboard that grows asks the store's budget first; one that shrinks or stays may always be saved
      if (bytes > rowBytes(existing)) await this.ctx.admit?.();
      await this.ctx.db.write((w) => {
        const n = w.run(
          `UPDATE dashboards SET title = ?, image = ?, mobile_hide = ?, mobile_order = ?, configuration = ?,
           version = version + 1 WHERE id = ? AND version = ?`,
          [...values, id, existing.version],
        );
        if (n === 0) throw versionConflict();
      });
      return this.toDashboard(this.requireRow(id));
    }
    await this.ctx.admit?.();
    const newId = randomUUID();
    await this.ctx.db.write((w) =>
      w.run(
        `INSERT INTO dashboards (id, created_time, title, image, mobile_hide, mobile_order, configuration, version)
         VALUES (?, ?, ?, ?, ?, ?, ?, 1)`,
        [newId, this.ctx.now(), ...values],
      ),
    );
    return this.toDashboard(this.requireRow(newId));
  }

  async delete(id: string, actor: Principal): Promise<void> {
    requireTenantAdmin(actor);
    this.requireRow(id);
    await this.ctx.db.write((w) => {
      w.run('DELETE FROM dashboards WHERE id = ?', [id]);
      w.run('DELETE FROM dashboard_customers WHERE dashboard_id = ?', [id]);
      deleteEntityDependents(this.ctx, w, 'DASHBOARD', id);
    });
  }

  private requireCustomer(customerId: string): void {
    if (!this.ctx.db.get('SELECT 1 FROM customers WHERE id = ?', [customerId]))
      throw notFound(`Customer with id [${customerId}] is not found`);
  }

  private static assign(w: Writer, dashboardId: string, customerId: string): void {
    w.run('INSERT OR IGNORE INTO dashboard_customers (dashboard_id, customer_id) VALUES (?, ?)', [
      dashboardId,
      customerId,
    ]);
  }

  private static unassign(w: Writer, dashboardId: string, customerId: string): void {
    w.run('DELETE FROM dashboard_customers WHERE dashboard_id = ? AND customer_id = ?', [
      dashboardId,
      customerId,
    ]);
  }

  /**
   * Changes which customers have the dashboard: `add` and `remove` of those given, or `set` to exactly
   * them (ThingsBoard's /customers/add, /customers/remove and /customers). Unknown customers are 404.
   */
  async changeCustomers(
    dashboardId: string,
    customerIds: string[],
    mode: 'add' | 'remove' | 'set',
    actor: Principal,
  ): Promise<Dashboard> {
    requireTenantAdmin(actor);
    this.requireRow(dashboardId);
    const ids = [...new Set(customerIds)];
    if (mode !== 'remove') for (const c of ids) this.requireCustomer(c);
    await this.ctx.db.write((w) => {
      if (mode === 'set') {
        const current = w
          .all<{ customer_id: string }>(
            'SELECT customer_id FROM dashboard_customers WHERE dashboard_id = ?',
            [dashboardId],
          )
          .map((r) => r.customer_id);
        for (const c of current) if (!ids.includes(c)) DashboardService.unassign(w, dashboardId, c);
      }
      for (const c of ids)
        if (mode === 'remove') DashboardService.unassign(w, dashboardId, c);
        else DashboardService.assign(w, dashboardId, c);
    });
    return this.toDashboard(this.requireRow(dashboardId));
  }

  async assignToCustomer(dashboardId: string, customerId: string, actor: Principal): Promise<Dashboard> {
    requireTenantAdmin(actor);
    this.requireCustomer(customerId);
    return this.changeCustomers(dashboardId, [customerId], 'add', actor);
  }

  async unassignFromCustomer(dashboardId: string, customerId: string, actor: Principal): Promise<Dashboard> {
    requireTenantAdmin(actor);
    this.requireCustomer(customerId);
    return this.changeCustomers(dashboardId, [customerId], 'remove', actor);
  }

  /** Assigns the dashboard to the tenant's public customer (made on first use), or takes it away. */
  async setPublic(dashboardId: string, isPublic: boolean, actor: Principal): Promise<Dashboard> {
    requireTenantAdmin(actor);
    this.requireRow(dashboardId);
    await this.ctx.db.write((w) => {
      const publicId = ensurePublicCustomer(w, this.ctx.now());
      if (isPublic) DashboardService.assign(w, dashboardId, publicId);
      else DashboardService.unassign(w, dashboardId, publicId);
    });
    return this.toDashboard(this.requireRow(dashboardId));
  }

  /** A page of dashboard infos: the tenant's, a customer's or an edge's. */
  infoPage(q: PageQuery, filter: DashboardFilter): PageData<DashboardInfo> {
    const where: string[] = [];
    const params: Param[] = [];
    let from = 'FROM dashboards e';
    if (filter.customerId) {
      from += ' JOIN dashboard_customers dc ON dc.dashboard_id = e.id';
      where.push('dc.customer_id = ?');
      params.push(filter.customerId);
    }
    if (filter.edgeId) {
      from += ` JOIN relations r ON r.to_id = e.id AND r.to_type = 'DASHBOARD' AND r.type = 'Contains' AND r.type_group = 'EDGE' AND r.from_type = 'EDGE'`;
      where.push('r.from_id = ?');
      params.push(filter.edgeId);
    }
    if (filter.mobile) where.push('e.mobile_hide = 0');
    const page = queryPage(
      this.ctx.db,
      {
        from,
        where,
        params,
        searchColumn: 'e.title',
        sortColumns: { createdTime: 'e.created_time', title: 'e.title' },
        defaultSort: 'createdTime',
        columns: INFO_COLUMNS,
      },
      q,
      (r: Row) => r as unknown as DashboardRow,
    );
    const customers = this.customersOf(page.data.map((r) => r.id));
    return { ...page, data: page.data.map((r) => this.toInfo(r, customers.get(r.id))) };
  }

  /** The id a user, customer or tenant additionalInfo names as home dashboard, if the principal may read it. */
  private homeOf(info: Record<string, unknown>, actor: Principal): HomeDashboardInfo | null {
    const id = info[HOME_DASHBOARD_ID];
    if (typeof id !== 'string' || id === '') return null;
    const row = this.findRow(id);
    if (!row || (actor.authority !== 'TENANT_ADMIN' && !this.isAssigned(id, actor.customerId))) return null;
    const hide = info[HOME_DASHBOARD_HIDE_TOOLBAR];
    return { dashboardId: ref('DASHBOARD', id), hideDashboardToolbar: hide === undefined ? true : !!hide };
  }

  /**
   * The principal's home dashboard as ThingsBoard finds it: the user's additionalInfo, then (for a customer
   * user) its customer's, then the tenant's; null when none names one it may read.
   */
  homeInfo(actor: Principal, tenantInfo: Record<string, unknown>): HomeDashboardInfo | null {
    const user = this.ctx.db.get<{ additional_info: string | null }>(
      'SELECT additional_info FROM users WHERE id = ?',
      [actor.userId],
    );
    const customer =
      actor.authority === 'CUSTOMER_USER' && actor.customerId
        ? this.ctx.db.get<{ additional_info: string | null }>(
            'SELECT additional_info FROM customers WHERE id = ?',
            [actor.customerId],
          )
        : undefined;
    return (
      this.homeOf(parseJson(user?.additional_info), actor) ??
      (customer ? this.homeOf(parseJson(customer.additional_info), actor) : null) ??
      this.homeOf(tenantInfo, actor)
    );
  }

  home(actor: Principal, tenantInfo: Record<string, unknown>): HomeDashboard | null {
    const info = this.homeInfo(actor, tenantInfo);
    if (!info?.dashboardId) return null;
    return {
      ...this.get(info.dashboardId.id, actor),
      hideDashboardToolbar: info.hideDashboardToolbar,
    };
  }

  /** The tenant's own home dashboard setting (hideDashboardToolbar true when none is set). */
  static tenantHomeInfo(tenantInfo: Record<string, unknown>): HomeDashboardInfo {
    const id = tenantInfo[HOME_DASHBOARD_ID];
    if (typeof id !== 'string' || id === '') return { dashboardId: null, hideDashboardToolbar: true };
    const hide = tenantInfo[HOME_DASHBOARD_HIDE_TOOLBAR];
    return { dashboardId: ref('DASHBOARD', id), hideDashboardToolbar: hide === undefined ? true : !!hide };
  }

  /** Checks the dashboard a tenant's home setting names (404 when missing). */
  requireForHome(id: string, actor: Principal): void {
    this.accessibleRow(id, actor);
  }

  findByTitle(title: string): DashboardRow | undefined {
    return this.ctx.db.get<DashboardRow>(
      'SELECT * FROM dashboards WHERE title = ? ORDER BY created_time LIMIT 1',
      [title],
    );
  }
}

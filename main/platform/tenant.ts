import { randomUUID } from 'node:crypto';
import type { PageData, PageQuery } from '../../shared/schemas/common.ts';
import type { Tenant, TenantInfo } from '../../shared/schemas/tenant.ts';
import { requireTenantAdmin, type Principal } from './auth/principal.ts';
import { getSetting, ref, type PlatformContext } from './context.ts';
import { notFound } from './errors.ts';

interface TenantRecord {
  title: string;
  createdTime: number;
  tenantProfileId: string;
  /** ThingsBoard's Tenant.additionalInfo: where the tenant's home dashboard is named */
  additionalInfo?: Record<string, unknown>;
}

/** ThingsBoard's demo tenant is titled "Tenant"; its profile "Default". */
const DEFAULT_TITLE = 'Tenant';
const PROFILE_NAME = 'Default';

/**
 * The one tenant of a Sandboard data directory, readable as ThingsBoard's Tenant and TenantInfo. It is
 * created with the data directory; ThingsBoard's system administrator, who creates and deletes tenants,
 * has no counterpart here, so the tenant administrator reads it.
 */
export class TenantService {
  private readonly ctx: PlatformContext;

  constructor(ctx: PlatformContext) {
    this.ctx = ctx;
  }

  /** Records the tenant's title and creation time on first start (data directories of before included). */
  async seed(): Promise<void> {
    if (getSetting<TenantRecord>(this.ctx.db, 'tenant')) return;
    const record: TenantRecord = {
      title: DEFAULT_TITLE,
      createdTime: this.ctx.now(),
      tenantProfileId: randomUUID(),
    };
    await this.ctx.db.write((w) =>
      w.run('INSERT INTO settings (key, value) VALUES (?, ?)', ['tenant', JSON.stringify(record)]),
    );
  }

  private tenant(): Tenant {
    const r = getSetting<TenantRecord>(this.ctx.db, 'tenant') ?? {
      title: DEFAULT_TITLE,
      createdTime: 0,
      tenantProfileId: this.ctx.tenantId,
    };
    return {
      id: ref('TENANT', this.ctx.tenantId),
      createdTime: r.createdTime,
      title: r.title,
      name: r.title,
      region: 'Global',
      tenantProfileId: ref('TENANT_PROFILE', r.tenantProfileId),
      country: null,
      state: null,
      city: null,
      address: null,
      address2: null,
      zip: null,
      phone: null,
      email: null,
      additionalInfo: r.additionalInfo ?? {},
    };
  }

  /** The tenant's additionalInfo (its home dashboard). */
  additionalInfo(): Record<string, unknown> {
    return this.tenant().additionalInfo;
  }

  /** Replaces the tenant's additionalInfo: the record is one setting row, rewritten in place. */
  async setAdditionalInfo(additionalInfo: Record<string, unknown>): Promise<void> {
    await this.seed();
    const record = { ...getSetting<TenantRecord>(this.ctx.db, 'tenant')!, additionalInfo };
    await this.ctx.db.write((w) =>
      w.run('UPDATE settings SET value = ? WHERE key = ?', [JSON.stringify(record), 'tenant']),
    );
  }

  get(id: string, actor: Principal): Tenant {
    requireTenantAdmin(actor);
    if (id !== this.ctx.tenantId) throw notFound(`Tenant with id [${id}] is not found`);
    return this.tenant();
  }

  info(id: string, actor: Principal): TenantInfo {
    return { ...this.get(id, actor), tenantProfileName: PROFILE_NAME };
  }

  /** The tenant among ids, if it is there. */
  byIds(ids: string[], actor: Principal): Tenant[] {
    requireTenantAdmin(actor);
    return ids.includes(this.ctx.tenantId) ? [this.tenant()] : [];
  }

  /** A page of the one tenant (textSearch matches its title). */
  page(q: PageQuery, actor: Principal): PageData<TenantInfo> {
    requireTenantAdmin(actor);
    const tenant = { ...this.tenant(), tenantProfileName: PROFILE_NAME };
    const matches = !q.textSearch || tenant.title.toLowerCase().includes(q.textSearch.toLowerCase());
    const all = matches ? [tenant] : [];
    const data = all.slice(q.page * q.pageSize, (q.page + 1) * q.pageSize);
    return {
      data,
      totalPages: Math.ceil(all.length / q.pageSize),
      totalElements: all.length,
      hasNext: (q.page + 1) * q.pageSize < all.length,
    };
  }
}

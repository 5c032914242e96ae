import { NULL_UUID } from '../../shared/schemas/common.ts';
import type { EntitySubtype } from '../../shared/schemas/assets.ts';
import { requireCustomerAccess, requireTenantAdmin, type Principal } from './auth/principal.ts';
import { ref, type PlatformContext } from './context.ts';
import { ensurePublicCustomer } from './customers.ts';
import { notFound } from './errors.ts';
import { parseJson } from './paging.ts';

/** The columns devices and assets share: a named, typed entity a customer may own. */
export interface OwnedRow {
  id: string;
  created_time: number;
  name: string;
  type: string;
  label: string | null;
  customer_id: string | null;
  additional_info: string | null;
}

export interface OwnedKind {
  table: 'devices' | 'assets' | 'edges';
  entityType: 'DEVICE' | 'ASSET' | 'EDGE';
  /** how errors name it: "Device with id [...] is not found" */
  label: string;
}

/** The customer a save request names, or null for none (ThingsBoard's NULL_UUID). */
export function requestedCustomerId(input: { customerId?: { id?: string } | null }): string | null {
  const id = input.customerId?.id;
  return id && id !== NULL_UUID ? id : null;
}

/**
 * What devices and assets do alike, written once: finding rows by id and name, who may see them, the
 * fields of their JSON shape, making one public and listing the types in use. Entity pages to come
 * (edges, dashboards) that a customer may own can use it too.
 */
export class OwnedEntityRows<R extends OwnedRow> {
  private readonly ctx: PlatformContext;
  private readonly kind: OwnedKind;

  constructor(ctx: PlatformContext, kind: OwnedKind) {
    this.ctx = ctx;
    this.kind = kind;
  }

  find(id: string): R | undefined {
    return this.ctx.db.get<R>(`SELECT * FROM ${this.kind.table} WHERE id = ?`, [id]);
  }

  findByName(name: string): R | undefined {
    return this.ctx.db.get<R>(`SELECT * FROM ${this.kind.table} WHERE name = ?`, [name]);
  }

  /** The row, or 404 naming it. */
  require(id: string): R {
    const row = this.find(id);
    if (!row) throw notFound(`${this.kind.label} with id [${id}] is not found`);
    return row;
  }

  /** The row a principal may see (a customer user: its customer's), or 404 / 403. */
  accessible(id: string, actor: Principal): R {
    const row = this.require(id);
    requireCustomerAccess(actor, row.customer_id);
    return row;
  }

  accessibleByName(name: string, actor: Principal): R {
    const row = this.findByName(name);
    if (!row) throw notFound(`${this.kind.label} with name [${name}] is not found`);
    requireCustomerAccess(actor, row.customer_id);
    return row;
  }

  /** The fields ThingsBoard's Device and Asset share, from a row. */
  commonFields(row: R) {
    return {
      createdTime: row.created_time,
      tenantId: ref('TENANT', this.ctx.tenantId),
      customerId: ref('CUSTOMER', row.customer_id ?? NULL_UUID),
      name: row.name,
      type: row.type,
      label: row.label,
      additionalInfo: parseJson(row.additional_info),
    };
  }

  /** Makes an entity public: assigns it to the tenant's public customer (created on first use). */
  async assignToPublicCustomer(id: string, actor: Principal): Promise<R> {
    requireTenantAdmin(actor);
    this.require(id);
    await this.ctx.db.write((w) => {
      const customerId = ensurePublicCustomer(w, this.ctx.now());
      w.run(`UPDATE ${this.kind.table} SET customer_id = ? WHERE id = ?`, [customerId, id]);
    });
    return this.find(id)!;
  }

  /** The types in use (ThingsBoard's EntitySubtype list), by name. */
  types(): EntitySubtype[] {
    return this.ctx.db
      .all<{ type: string }>(`SELECT DISTINCT type FROM ${this.kind.table} ORDER BY type`)
      .map((r) => ({
        tenantId: ref('TENANT', this.ctx.tenantId),
        entityType: this.kind.entityType,
        type: r.type,
      }));
  }
}

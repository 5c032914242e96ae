import { randomUUID } from 'node:crypto';
import type { PageData, PageQuery } from '../../shared/schemas/common.ts';
import type { Customer, SaveCustomerRequest } from '../../shared/schemas/entities.ts';
import type { Row, Writer } from '../store/durable-db.ts';
import { requireCustomerAccess, requireTenantAdmin, type Principal } from './auth/principal.ts';
import { ref, type PlatformContext } from './context.ts';
import { invalidArgument, isUniqueViolation, notFound } from './errors.ts';
import { entityName } from './names.ts';
import { parseJson, queryPage, rowsByIds } from './paging.ts';
import { announceSessionsEnded } from './auth/sessions.ts';

interface CustomerRow {
  id: string;
  created_time: number;
  title: string;
  email: string | null;
  phone: string | null;
  country: string | null;
  city: string | null;
  address: string | null;
  additional_info: string | null;
}

export class CustomerService {
  private readonly ctx: PlatformContext;
  constructor(ctx: PlatformContext) {
    this.ctx = ctx;
  }

  private toCustomer(row: CustomerRow): Customer {
    return {
      id: ref('CUSTOMER', row.id),
      createdTime: row.created_time,
      tenantId: ref('TENANT', this.ctx.tenantId),
      title: row.title,
      name: row.title,
      email: row.email,
      phone: row.phone,
      country: row.country,
      city: row.city,
      address: row.address,
      additionalInfo: parseJson(row.additional_info),
    };
  }

  exists(id: string): boolean {
    return this.ctx.db.get('SELECT 1 FROM customers WHERE id = ?', [id]) !== undefined;
  }

  get(id: string, actor: Principal): Customer {
    requireCustomerAccess(actor, id);
    const row = this.ctx.db.get<CustomerRow>('SELECT * FROM customers WHERE id = ?', [id]);
    if (!row) throw notFound(`Customer with id [${id}] is not found`);
    return this.toCustomer(row);
  }

  async save(request: SaveCustomerRequest, actor: Principal): Promise<Customer> {
    await this.ctx.admit?.();
    requireTenantAdmin(actor);
    const input = { ...request, title: entityName(request.title, 'Customer title') };
    const id = input.id?.id ?? randomUUID();
    const values = [input.title, input.email, input.phone, input.country, input.city, input.address];
    const info = JSON.stringify(input.additionalInfo ?? {});
    try {
      await this.ctx.db.write((w) => {
        if (input.id) {
          const n = w.run(
            'UPDATE customers SET title = ?, email = ?, phone = ?, country = ?, city = ?, address = ?, additional_info = ? WHERE id = ?',
            [...values, info, id],
          );
          if (n === 0) throw notFound(`Customer with id [${id}] is not found`);
        } else {
          w.run(
            `INSERT INTO customers (id, created_time, title, email, phone, country, city, address, additional_info)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            [id, this.ctx.now(), ...values, info],
          );
        }
      });
    } catch (err) {
      if (isUniqueViolation(err))
        throw invalidArgument(`Customer with title '${input.title}' already exists!`);
      throw err;
    }
    return this.get(id, actor);
  }

  /** Deletes the customer with its users and their keys; its devices, assets and alarms go back to the tenant. */
  async delete(id: string, actor: Principal): Promise<string[]> {
    requireTenantAdmin(actor);
    const userIds = this.ctx.db
      .all<{ id: string }>('SELECT id FROM users WHERE customer_id = ?', [id])
      .map((r) => r.id);
    const n = await this.ctx.db.write((w) => {
      const deleted = w.run('DELETE FROM customers WHERE id = ?', [id]);
      if (deleted === 0) return 0;
      w.run('DELETE FROM api_keys WHERE user_id IN (SELECT id FROM users WHERE customer_id = ?)', [id]);
      w.run(
        'UPDATE alarms SET assignee_id = NULL, assign_ts = ? WHERE assignee_id IN (SELECT id FROM users WHERE customer_id = ?)',
        [this.ctx.now(), id],
      );
      w.run('DELETE FROM user_settings WHERE user_id IN (SELECT id FROM users WHERE customer_id = ?)', [id]);
      w.run('DELETE FROM users WHERE customer_id = ?', [id]);
      w.run('UPDATE devices SET customer_id = NULL WHERE customer_id = ?', [id]);
      w.run('UPDATE edges SET customer_id = NULL WHERE customer_id = ?', [id]);
      w.run('UPDATE assets SET customer_id = NULL WHERE customer_id = ?', [id]);
      w.run('UPDATE alarms SET customer_id = NULL WHERE customer_id = ?', [id]);
      w.run('DELETE FROM dashboard_customers WHERE customer_id = ?', [id]);
      return deleted;
    });
    if (n === 0) throw notFound(`Customer with id [${id}] is not found`);
    announceSessionsEnded(this.ctx, userIds);
    return userIds;
  }

  /** ThingsBoard's shortInfo: the title and whether the customer is the public one. */
  shortInfo(id: string, actor: Principal): { title: string; isPublic: boolean } {
    const c = this.get(id, actor);
    const isPublic = c.additionalInfo.isPublic;
    return { title: c.title, isPublic: isPublic === true || isPublic === 'true' };
  }

  byTitle(title: string, actor: Principal): Customer {
    requireTenantAdmin(actor);
    const row = this.ctx.db.get<CustomerRow>('SELECT * FROM customers WHERE title = ?', [title]);
    if (!row) throw notFound(`Customer with title [${title}] is not found`);
    return this.toCustomer(row);
  }

  /** The customers among ids; unknown ids are left out. */
  byIds(ids: string[], actor: Principal): Customer[] {
    requireTenantAdmin(actor);
    return rowsByIds<CustomerRow>(this.ctx.db, 'customers', ids).map((r) => this.toCustomer(r));
  }

  page(q: PageQuery, actor: Principal): PageData<Customer> {
    requireTenantAdmin(actor);
    return queryPage(
      this.ctx.db,
      {
        from: 'FROM customers e',
        where: [],
        params: [],
        searchColumn: 'e.title',
        sortColumns: {
          createdTime: 'e.created_time',
          title: 'e.title',
          email: 'e.email',
          country: 'e.country',
          city: 'e.city',
        },
        defaultSort: 'createdTime',
      },
      q,
      (r: Row) => this.toCustomer(r as unknown as CustomerRow),
    );
  }
}

export const PUBLIC_CUSTOMER_TITLE = 'Public';

const PUBLIC_INFO = "json_extract(additional_info, '$.isPublic') IN (1, 'true')";

/** Whether the customer exists and is the tenant's public one. */
export function isPublicCustomer(db: Pick<Writer, 'get'>, id: string): boolean {
  return db.get(`SELECT 1 FROM customers WHERE id = ? AND ${PUBLIC_INFO}`, [id]) !== undefined;
}

/** The tenant's public customer (ThingsBoard's, which public entities are assigned to), made on first use. */
export function ensurePublicCustomer(w: Writer, now: number): string {
  const found = w.get<{ id: string }>(
    `SELECT id FROM customers WHERE ${PUBLIC_INFO} ORDER BY created_time LIMIT 1`,
  );
  if (found) return found.id;
  if (w.get('SELECT 1 FROM customers WHERE title = ?', [PUBLIC_CUSTOMER_TITLE]))
    throw invalidArgument(
      `A customer titled '${PUBLIC_CUSTOMER_TITLE}' exists and is not public: rename it first`,
    );
  const id = randomUUID();
  w.run('INSERT INTO customers (id, created_time, title, additional_info) VALUES (?, ?, ?, ?)', [
    id,
    now,
    PUBLIC_CUSTOMER_TITLE,
    JSON.stringify({ isPublic: true }),
  ]);
  return id;
}

import { randomUUID } from 'node:crypto';
import bcrypt from 'bcryptjs';
import type { Authority, SaveUserRequest, User } from '../../shared/schemas/auth.ts';
import { NULL_UUID, type PageData, type PageQuery } from '../../shared/schemas/common.ts';
import type { Row, Writer } from '../store/durable-db.ts';
import { checkPasswordPolicy } from './auth/password-policy.ts';
import type { Principal } from './auth/principal.ts';
import { requireTenantAdmin } from './auth/principal.ts';
import { ref, type PlatformContext } from './context.ts';
import { forbidden, invalidArgument, isUniqueViolation, notFound } from './errors.ts';
import { parseJson, queryPage, rowsByIds } from './paging.ts';
import { randomAlphanumeric } from './random-text.ts';
import { announceSessionsEnded, endSessions } from './auth/sessions.ts';
import type { DemoPasswords } from './auth/demo-passwords.ts';

export interface UserRow {
  id: string;
  created_time: number;
  email: string;
  authority: Authority;
  customer_id: string | null;
  first_name: string | null;
  last_name: string | null;
  password_hash: string | null;
  default_password: number;
  tokens_valid_from: number;
  enabled: number;
  additional_info: string | null;
  /** set while the user waits for activation (created without a password) */
  activate_token: string | null;
  activate_token_exp: number | null;
  reset_token: string | null;
  reset_token_exp: number | null;
}

const BCRYPT_ROUNDS = 10;
/** ThingsBoard's DEFAULT_TOKEN_LENGTH for activation and reset tokens */
export const ACTIVATION_TOKEN_LENGTH = 30;
/** How long activation and password reset links live (ThingsBoard's securitySettings default, 24 h). */
export const CREDENTIALS_TOKEN_TTL_MS = 24 * 3_600_000;

/** Tenant administrators and customer users, with bcrypt password hashes. */
export class UserService {
  private readonly ctx: PlatformContext;
  private readonly cache = new Map<string, UserRow>();

  constructor(ctx: PlatformContext) {
    this.ctx = ctx;
    ctx.events.on('sessionsEnded', ({ userIds }) => {
      for (const id of userIds) this.cache.delete(id);
    });
    ctx.events.on('sandboxLoaded', () => this.cache.clear());
  }

  toUser(row: UserRow): User {
    return {
      id: ref('USER', row.id),
      createdTime: row.created_time,
      tenantId: ref('TENANT', this.ctx.tenantId),
      customerId: ref('CUSTOMER', row.customer_id ?? NULL_UUID),
      email: row.email,
      name: row.email,
      authority: row.authority,
      firstName: row.first_name,
      lastName: row.last_name,
      additionalInfo: { ...parseJson(row.additional_info), userCredentialsEnabled: row.enabled !== 0 },
    };
  }

  /** The row of a user, cached: every authenticated request asks for it. */
  findRow(id: string): UserRow | undefined {
    let row = this.cache.get(id);
    if (!row) {
      row = this.ctx.db.get<UserRow>('SELECT * FROM users WHERE id = ?', [id]);
      if (row) this.cache.set(id, row);
    }
    return row;
  }

  /** Drops a cached row, for users deleted outside this service (with their customer). */
  forget(id: string): void {
    this.cache.delete(id);
  }

  findRowByEmail(email: string): UserRow | undefined {
    return this.ctx.db.get<UserRow>('SELECT * FROM users WHERE email = ? COLLATE NOCASE', [email]);
  }

  get(id: string, actor: Principal): User {
    const row = this.findRow(id);
    if (!row) throw notFound(`User with id [${id}] is not found`);
    if (actor.authority !== 'TENANT_ADMIN' && row.id !== actor.userId) throw forbidden();
    return this.toUser(row);
  }

  async save(input: SaveUserRequest, actor: Principal): Promise<User> {
    await this.ctx.admit?.();
    requireTenantAdmin(actor);
    const customerId = input.authority === 'CUSTOMER_USER' ? (input.customerId?.id ?? null) : null;
    if (input.authority === 'CUSTOMER_USER') {
      if (!customerId || customerId === NULL_UUID)
        throw invalidArgument('customerId is required for a CUSTOMER_USER');
      if (!this.ctx.db.get('SELECT 1 FROM customers WHERE id = ?', [customerId])) {
        throw invalidArgument(`Customer with id [${customerId}] is not found`);
      }
    }
    if (input.password) checkPasswordPolicy(input.password);
    const passwordHash = input.password ? await bcrypt.hash(input.password, BCRYPT_ROUNDS) : null;
    const existingId = input.id?.id;
    let ended = false;
    try {
      const id = await this.ctx.db.write((w) => {
        const { userCredentialsEnabled: _derived, ...additionalInfo } = input.additionalInfo ?? {};
        const info = JSON.stringify(additionalInfo);
        if (existingId) {
          const existing = w.get<UserRow>('SELECT * FROM users WHERE id = ?', [existingId]);
          if (!existing) throw notFound(`User with id [${existingId}] is not found`);
          // a new password, another login name, role or customer: what the old tokens stood for is gone
          ended =
            passwordHash !== null ||
            existing.email.toLowerCase() !== input.email.toLowerCase() ||
            existing.authority !== input.authority ||
            existing.customer_id !== customerId;
          w.run(
            `UPDATE users SET email = ?, authority = ?, customer_id = ?, first_name = ?, last_name = ?, additional_info = ?,
             password_hash = COALESCE(?, password_hash), default_password = CASE WHEN ? IS NULL THEN default_password ELSE 0 END
             WHERE id = ?`,
            [
              input.email,
              input.authority,
              customerId,
              input.firstName,
              input.lastName,
              info,
              passwordHash,
              passwordHash,
              existingId,
            ],
          );
          if (ended) endSessions(this.ctx, w, [existingId]);
          // a first password given to a user waiting for activation activates it
          if (passwordHash && existing.password_hash === null)
            this.clearLinks(w, existingId, { activate: true });
          return existingId;
        }
        const newId = randomUUID();
        // Without a password (ThingsBoard's way) the user is not enabled until activated through its link.
        const now = this.ctx.now();
        w.run(
          `INSERT INTO users (id, created_time, email, authority, customer_id, first_name, last_name, password_hash, additional_info,
             enabled, activate_token, activate_token_exp)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            newId,
            now,
            input.email,
            input.authority,
            customerId,
            input.firstName,
            input.lastName,
            passwordHash,
            info,
            passwordHash ? 1 : 0,
            passwordHash ? null : randomAlphanumeric(ACTIVATION_TOKEN_LENGTH),
            passwordHash ? null : now + CREDENTIALS_TOKEN_TTL_MS,
          ],
        );
        return newId;
      });
      this.cache.delete(id);
      if (ended) announceSessionsEnded(this.ctx, [id]);
      return this.toUser(this.findRow(id)!);
    } catch (err) {
      if (isUniqueViolation(err))
        throw invalidArgument(`User with email '${input.email}' already present in database!`);
      throw err;
    }
  }

  async delete(id: string, actor: Principal): Promise<void> {
    requireTenantAdmin(actor);
    if (id === actor.userId) throw invalidArgument('You cannot delete yourself');
    const changes = await this.ctx.db.write((w) => {
      const n = w.run('DELETE FROM users WHERE id = ?', [id]);
      w.run('DELETE FROM api_keys WHERE user_id = ?', [id]);
      // ThingsBoard unassigns a deleted user's alarms
      w.run('UPDATE alarms SET assignee_id = NULL, assign_ts = ? WHERE assignee_id = ?', [
        this.ctx.now(),
        id,
      ]);
      w.run('DELETE FROM user_settings WHERE user_id = ?', [id]);
      return n;
    });
    this.cache.delete(id);
    if (changes === 0) throw notFound(`User with id [${id}] is not found`);
    announceSessionsEnded(this.ctx, [id]);
  }

  /** ThingsBoard's userCredentialsEnabled: a disabled user cannot log in, and its sessions end at once. */
  async setEnabled(id: string, enabled: boolean, actor: Principal): Promise<void> {
    requireTenantAdmin(actor);
    if (id === actor.userId && !enabled) throw invalidArgument('You cannot disable yourself');
    const changed = await this.ctx.db.write((w) => {
      const row = w.get<UserRow>('SELECT * FROM users WHERE id = ?', [id]);
      if (!row) throw notFound(`User with id [${id}] is not found`);
      if ((row.enabled !== 0) === enabled) return false;
      w.run('UPDATE users SET enabled = ? WHERE id = ?', [enabled ? 1 : 0, id]);
      if (!enabled) endSessions(this.ctx, w, [id]);
      return !enabled;
    });
    this.cache.delete(id);
    if (changed) announceSessionsEnded(this.ctx, [id]);
  }

  /**
   * Users a page at a time: of a customer, of an authority, or the tenant's administrators together with
   * one customer's users (adminsAndCustomer).
   */
  page(
    q: PageQuery,
    filter: { customerId?: string; authority?: Authority; adminsAndCustomer?: string },
  ): PageData<User> {
    const where: string[] = [];
    const params: string[] = [];
    if (filter.customerId) {
      where.push('e.customer_id = ?');
      params.push(filter.customerId);
    }
    if (filter.adminsAndCustomer) {
      where.push('(e.customer_id IS NULL OR e.customer_id = ?)');
      params.push(filter.adminsAndCustomer);
    }
    if (filter.authority) {
      where.push('e.authority = ?');
      params.push(filter.authority);
    }
    return queryPage(
      this.ctx.db,
      {
        from: 'FROM users e',
        where,
        params,
        searchColumn: 'e.email',
        sortColumns: {
          createdTime: 'e.created_time',
          email: 'e.email',
          firstName: 'e.first_name',
          lastName: 'e.last_name',
        },
        defaultSort: 'createdTime',
      },
      q,
      (row: Row) => this.toUser(row as unknown as UserRow),
    );
  }

  /** The users among ids the actor may read: a customer user reads itself only (ThingsBoard's permissions). */
  byIds(ids: string[], actor: Principal): User[] {
    const visible = actor.authority === 'TENANT_ADMIN' ? ids : ids.filter((id) => id === actor.userId);
    return rowsByIds<UserRow>(this.ctx.db, 'users', visible).map((r) => this.toUser(r));
  }

  async passwordMatches(user: UserRow, password: string): Promise<boolean> {
    return user.password_hash !== null && (await bcrypt.compare(password, user.password_hash));
  }

  async verifyPassword(email: string, password: string): Promise<UserRow | undefined> {
    const row = this.findRowByEmail(email);
    // Compare against a dummy hash when the user is unknown so both paths take the same time.
    const hash = row?.password_hash ?? DUMMY_HASH;
    const ok = await bcrypt.compare(password, hash);
    return ok && row?.password_hash ? row : undefined;
  }

  /**
   * Sets a new password and makes every token issued before now invalid; activate: also enables the user
   * (its activation link). Pending activation and reset links stop working.
   */
  async setPassword(userId: string, password: string, options: { activate?: boolean } = {}): Promise<void> {
    const hash = await bcrypt.hash(password, BCRYPT_ROUNDS);
    await this.ctx.db.write((w) => {
      w.run('UPDATE users SET password_hash = ?, default_password = 0 WHERE id = ?', [hash, userId]);
      this.clearLinks(w, userId, options);
      endSessions(this.ctx, w, [userId]);
    });
    this.cache.delete(userId);
    announceSessionsEnded(this.ctx, [userId]);
  }

  /** Voids a user's activation and reset links; activate enables the user. */
  private clearLinks(w: Writer, userId: string, options: { activate?: boolean }): void {
    w.run(
      `UPDATE users SET activate_token = NULL, activate_token_exp = NULL, reset_token = NULL, reset_token_exp = NULL,
         enabled = CASE WHEN ? THEN 1 ELSE enabled END WHERE id = ?`,
      [options.activate ? 1 : 0, userId],
    );
  }

  /**
   * Creates ThingsBoard's demo logins on first start. Returns the ones it created. With `random`
   * (desktop installs) their passwords are those instead of the public ones, and so not "default".
   */
  async seedDemoUsers(
    random?: DemoPasswords,
  ): Promise<{ email: string; password: string; authority: Authority }[]> {
    if (this.ctx.db.get('SELECT 1 FROM users LIMIT 1')) return [];
    // The demo passwords are public, so their bcrypt hashes are precomputed: first start skips ~200 ms of hashing.
    const demo = [
      {
        email: 'tenant@thingsboard.org',
        password: 'tenant',
        hash: '$2b$10$uRoyIdbtHghCs86pHz4lwOKJsQ5aEdlOzoB7p6WmWBngQxikt3ckS',
        authority: 'TENANT_ADMIN' as const,
      },
      {
        email: 'customer@thingsboard.org',
        password: 'customer',
        hash: '$2b$10$BKhqXEoGKZu373LqAo6oSOJpAFILduPqKAvjst5DlZKOxFB5NvvP6',
        authority: 'CUSTOMER_USER' as const,
      },
    ];
    if (random) {
      for (const d of demo) {
        d.password = d.authority === 'TENANT_ADMIN' ? random.tenant : random.customer;
        d.hash = await bcrypt.hash(d.password, BCRYPT_ROUNDS);
      }
    }
    const defaultPassword = random ? 0 : 1;
    const now = this.ctx.now();
    await this.ctx.db.write((w) => {
      const customerId = randomUUID();
      w.run('INSERT INTO customers (id, created_time, title, additional_info) VALUES (?, ?, ?, ?)', [
        customerId,
        now,
        'Customer A',
        '{}',
      ]);
      demo.forEach((d) => {
        w.run(
          `INSERT INTO users (id, created_time, email, authority, customer_id, first_name, last_name, password_hash, default_password, additional_info)
           VALUES (?, ?, ?, ?, ?, NULL, NULL, ?, ?, '{}')`,
          [
            randomUUID(),
            now,
            d.email,
            d.authority,
            d.authority === 'CUSTOMER_USER' ? customerId : null,
            d.hash,
            defaultPassword,
          ],
        );
      });
    });
    return demo.map(({ email, password, authority }) => ({ email, password, authority }));
  }

  /**
   * A desktop install made before its demo passwords were random: demo users that still have the public
   * password get this install's random one (and their sessions end), so no local process can log in
   * with what every ThingsBoard user knows.
   */
  async replacePublicDemoPasswords(random: DemoPasswords): Promise<string[]> {
    const replaced: string[] = [];
    for (const [email, password] of [
      ['tenant@thingsboard.org', random.tenant],
      ['customer@thingsboard.org', random.customer],
    ] as const) {
      const row = this.findRowByEmail(email);
      if (!row || row.default_password !== 1) continue;
      const hash = await bcrypt.hash(password, BCRYPT_ROUNDS);
      await this.ctx.db.write((w) => {
        w.run('UPDATE users SET password_hash = ?, default_password = 0 WHERE id = ?', [hash, row.id]);
        endSessions(this.ctx, w, [row.id]);
      });
      this.cache.delete(row.id);
      announceSessionsEnded(this.ctx, [row.id]);
      replaced.push(email);
    }
    return replaced;
  }

  usersWithDefaultPasswords(): string[] {
    return this.ctx.db
      .all<{ email: string }>('SELECT email FROM users WHERE default_password = 1')
      .map((r) => r.email);
  }
}

const DUMMY_HASH = bcrypt.hashSync('sandboard-dummy-password', 4).replace(/^\$2b\$04\$/, '$2b$10$');

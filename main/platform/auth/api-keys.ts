import { hash as digest, randomBytes, randomUUID } from 'node:crypto';
import type { ApiKey, CreateApiKeyRequest, CreatedApiKey } from '../../../shared/schemas/auth.ts';
import type { PageData, PageQuery } from '../../../shared/schemas/common.ts';
import type { Row } from '../../store/durable-db.ts';
import { ref, type PlatformContext } from '../context.ts';
import { forbidden, invalidArgument, notFound } from '../errors.ts';
import { queryPage } from '../paging.ts';
import type { Principal } from './principal.ts';

interface ApiKeyRow {
  id: string;
  created_time: number;
  user_id: string;
  description: string;
  expiration_time: number;
  enabled: number;
  key_hash: string;
}

export type ApiKeyCheck =
  { ok: true; userId: string } | { ok: false; reason: 'unknown' | 'disabled' | 'expired' };

/**
 * API keys: the value (tb_ + 64 random bytes, base64url) is returned once and stored only as its SHA-256.
 * The value has 512 bits of entropy, so a fast hash is enough, and a request costs no bcrypt.
 * Lookups go through the hash, so comparing secrets never leaks timing about the stored keys.
 */
export class ApiKeyService {
  private readonly ctx: PlatformContext;
  private readonly byHash = new Map<string, ApiKeyRow>();

  constructor(ctx: PlatformContext) {
    this.ctx = ctx;
    for (const row of ctx.db.all<ApiKeyRow>('SELECT * FROM api_keys')) this.byHash.set(row.key_hash, row);
  }

  static hash(value: string): string {
    return digest('sha256', value, 'hex');
  }

  check(value: string): ApiKeyCheck {
    const row = this.byHash.get(ApiKeyService.hash(value));
    if (!row) return { ok: false, reason: 'unknown' };
    if (!row.enabled) return { ok: false, reason: 'disabled' };
    if (row.expiration_time > 0 && row.expiration_time <= this.ctx.now())
      return { ok: false, reason: 'expired' };
    return { ok: true, userId: row.user_id };
  }

  private toApiKey(row: ApiKeyRow): ApiKey {
    return {
      id: ref('API_KEY', row.id),
      createdTime: row.created_time,
      tenantId: ref('TENANT', this.ctx.tenantId),
      userId: ref('USER', row.user_id),
      description: row.description,
      expirationTime: row.expiration_time,
      enabled: row.enabled === 1,
      expired: row.expiration_time > 0 && row.expiration_time <= this.ctx.now(),
    };
  }

  async create(input: CreateApiKeyRequest, actor: Principal): Promise<CreatedApiKey> {
    await this.ctx.admit?.();
    const userId = input.userId?.id ?? actor.userId;
    if (userId !== actor.userId && actor.authority !== 'TENANT_ADMIN') throw forbidden();
    if (!this.ctx.db.get('SELECT 1 FROM users WHERE id = ?', [userId]))
      throw invalidArgument(`User with id [${userId}] is not found`);
    const expirationTime = input.expirationTime ?? 0;
    if (expirationTime > 0 && expirationTime <= this.ctx.now())
      throw invalidArgument('expirationTime must be in the future');
    const value = `tb_${randomBytes(64).toString('base64url')}`;
    const row: ApiKeyRow = {
      id: randomUUID(),
      created_time: this.ctx.now(),
      user_id: userId,
      description: input.description,
      expiration_time: expirationTime,
      enabled: input.enabled === false ? 0 : 1,
      key_hash: ApiKeyService.hash(value),
    };
    await this.ctx.db.write((w) =>
      w.run(
        'INSERT INTO api_keys (id, created_time, user_id, description, expiration_time, enabled, key_hash) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [
          row.id,
          row.created_time,
          row.user_id,
          row.description,
          row.expiration_time,
          row.enabled,
          row.key_hash,
        ],
      ),
    );
    this.byHash.set(row.key_hash, row);
    return { ...this.toApiKey(row), value };
  }

  page(userId: string, q: PageQuery, actor: Principal): PageData<ApiKey> {
    if (userId !== actor.userId && actor.authority !== 'TENANT_ADMIN') throw forbidden();
    return queryPage(
      this.ctx.db,
      {
        from: 'FROM api_keys e',
        where: ['e.user_id = ?'],
        params: [userId],
        searchColumn: 'e.description',
        sortColumns: {
          createdTime: 'e.created_time',
          description: 'e.description',
          expirationTime: 'e.expiration_time',
        },
        defaultSort: 'createdTime',
      },
      q,
      (r: Row) => this.toApiKey(r as unknown as ApiKeyRow),
    );
  }

  get(id: string, actor: Principal): ApiKey {
    return this.toApiKey(this.owned(id, actor));
  }

  async update(
    id: string,
    change: { description?: string; enabled?: boolean },
    actor: Principal,
  ): Promise<ApiKey> {
    const row = this.owned(id, actor);
    const next = {
      ...row,
      description: change.description ?? row.description,
      enabled: change.enabled === undefined ? row.enabled : change.enabled ? 1 : 0,
    };
    await this.ctx.db.write((w) =>
      w.run('UPDATE api_keys SET description = ?, enabled = ? WHERE id = ?', [
        next.description,
        next.enabled,
        id,
      ]),
    );
    this.byHash.set(row.key_hash, next);
    return this.toApiKey(next);
  }

  async delete(id: string, actor: Principal): Promise<void> {
    const row = this.owned(id, actor);
    await this.ctx.db.write((w) => w.run('DELETE FROM api_keys WHERE id = ?', [id]));
    this.byHash.delete(row.key_hash);
  }

  /** Forgets the keys of a deleted user. */
  forgetUser(userId: string): void {
    for (const [hash, row] of this.byHash) if (row.user_id === userId) this.byHash.delete(hash);
  }

  private owned(id: string, actor: Principal): ApiKeyRow {
    const row = this.ctx.db.get<ApiKeyRow>('SELECT * FROM api_keys WHERE id = ?', [id]);
    if (!row) throw notFound(`API key with id [${id}] is not found`);
    if (row.user_id !== actor.userId && actor.authority !== 'TENANT_ADMIN') throw forbidden();
    return row;
  }
}

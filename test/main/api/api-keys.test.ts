import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestPlatform } from '../../helpers/platform.ts';
import {
  CUSTOMER,
  expectTbError,
  okEmpty,
  okJson,
  useSharedPlatform,
  waitUntilPast,
  type ApiPlatform,
  type EntityRef,
  type PageJson,
} from './api-kit.ts';

interface ApiKeyJson {
  id: EntityRef;
  createdTime: number;
  tenantId: EntityRef;
  userId: EntityRef;
  description: string;
  expirationTime: number;
  enabled: boolean;
  expired: boolean;
  value?: string;
}

async function createKey(
  p: Pick<ApiPlatform, 'http'>,
  token: string,
  body: Record<string, unknown>,
): Promise<ApiKeyJson & { value: string }> {
  return okJson(p.http('/api/apiKey', { method: 'POST', token, json: body }));
}

async function me(p: Pick<ApiPlatform, 'http'>, auth: { token?: string; apiKey?: string }) {
  return p.http('/api/auth/user', auth);
}

describe('API keys', () => {
  const platform = useSharedPlatform();

  it('creates a key whose tb_ value is shown once, and authenticates with it in both headers', async () => {
    const p = platform();
    const token = await p.login();
    const userId = (await okJson<{ id: EntityRef }>(me(p, { token }))).id.id;
    const before = Date.now();
    const key = await createKey(p, token, { description: 'ci pipeline' });
    expect(key.value).toMatch(/^tb_[A-Za-z0-9_-]{86}$/); // 64 random bytes, base64url
    expect(key).toMatchObject({
      id: { entityType: 'API_KEY' },
      userId: { entityType: 'USER', id: userId },
      description: 'ci pipeline',
      expirationTime: 0,
      enabled: true,
      expired: false,
    });
    expect(key.createdTime).toBeGreaterThanOrEqual(before);

    const viaX = await p.http('/api/auth/user', { headers: { 'X-Authorization': `ApiKey ${key.value}` } });
    expect((await okJson<{ email: string }>(viaX)).email).toBe('tenant@thingsboard.org');
    const viaStd = await p.http('/api/auth/user', { headers: { Authorization: `ApiKey ${key.value}` } });
    expect(viaStd.status).toBe(200);
    await viaStd.body?.cancel();
    // the key reaches the same data as a JWT
    const devices = await p.http('/api/tenant/devices?pageSize=5&page=0', { apiKey: key.value });
    expect(devices.status).toBe(200);
    await devices.body?.cancel();

    const fetched = await okJson<ApiKeyJson>(p.http(`/api/apiKey/${key.id.id}`, { token }));
    const { value: _value, ...withoutValue } = key;
    expect(fetched).toEqual(withoutValue);
    expect(fetched).not.toHaveProperty('value');
    const listed = await okJson<PageJson<ApiKeyJson>>(
      p.http(`/api/apiKeys/${userId}?pageSize=50&page=0`, { token }),
    );
    expect(listed.data.map((k) => k.id.id)).toContain(key.id.id);
    const raw = JSON.stringify(listed) + JSON.stringify(fetched);
    expect(raw).not.toContain(key.value);
    expect(raw).not.toContain(key.value.slice(3));
    for (const k of listed.data) expect(k).not.toHaveProperty('value');
  });

  it("lists a user's keys a page at a time", async () => {
    const p = platform();
    const token = await p.login(CUSTOMER.username, CUSTOMER.password);
    const userId = (await okJson<{ id: EntityRef }>(me(p, { token }))).id.id;
    const created: string[] = [];
    for (const d of ['page-a', 'page-b', 'page-c'])
      created.push((await createKey(p, token, { description: d })).id.id);

    const first = await okJson<PageJson<ApiKeyJson>>(
      p.http(`/api/apiKeys/${userId}?pageSize=2&page=0&sortProperty=description&sortOrder=ASC`, { token }),
    );
    expect(first).toMatchObject({ totalElements: 3, totalPages: 2, hasNext: true });
    expect(first.data.map((k) => k.description)).toEqual(['page-a', 'page-b']);
    const second = await okJson<PageJson<ApiKeyJson>>(
      p.http(`/api/apiKeys/${userId}?pageSize=2&page=1&sortProperty=description&sortOrder=ASC`, { token }),
    );
    expect(second).toMatchObject({ totalElements: 3, totalPages: 2, hasNext: false });
    expect(second.data.map((k) => k.description)).toEqual(['page-c']);
    expect([...first.data, ...second.data].map((k) => k.id.id).sort()).toEqual(created.sort());
    const search = await okJson<PageJson<ApiKeyJson>>(
      p.http(`/api/apiKeys/${userId}?pageSize=10&page=0&textSearch=GE-B`, { token }),
    );
    expect(search.data.map((k) => k.description)).toEqual(['page-b']);

    // a customer user cannot list the tenant admin's keys
    const admin = await p.login();
    const adminId = (await okJson<{ id: EntityRef }>(me(p, { token: admin }))).id.id;
    await expectTbError(await p.http(`/api/apiKeys/${adminId}?pageSize=10&page=0`, { token }), 403, 20);
    await expectTbError(
      await p.http('/api/apiKey', {
        method: 'POST',
        token,
        json: { description: 'steal', userId: { entityType: 'USER', id: adminId } },
      }),
      403,
      20,
    );
  });

  it('disables (401), enables again (works) and renames a key', async () => {
    const p = platform();
    const token = await p.login();
    const key = await createKey(p, token, { description: 'toggle me' });

    const disabled = await okJson<ApiKeyJson>(
      p.http(`/api/apiKey/${key.id.id}/enabled/false`, { method: 'PUT', token }),
    );
    expect(disabled.enabled).toBe(false);
    await expectTbError(await me(p, { apiKey: key.value }), 401, 10, 'disabled');

    const enabled = await okJson<ApiKeyJson>(
      p.http(`/api/apiKey/${key.id.id}/enabled/true`, { method: 'PUT', token }),
    );
    expect(enabled.enabled).toBe(true);
    expect((await me(p, { apiKey: key.value })).status).toBe(200);

    const renamed = await okJson<ApiKeyJson>(
      p.http(`/api/apiKey/${key.id.id}/description`, { method: 'PUT', token, json: 'nightly export' }),
    );
    expect(renamed.description).toBe('nightly export');
    const plain = await okJson<ApiKeyJson>(
      p.http(`/api/apiKey/${key.id.id}/description`, {
        method: 'PUT',
        token,
        headers: { 'content-type': 'text/plain' },
        body: 'plain text name',
      }),
    );
    expect(plain.description).toBe('plain text name');
    expect((await okJson<ApiKeyJson>(p.http(`/api/apiKey/${key.id.id}`, { token }))).description).toBe(
      'plain text name',
    );
    expect((await me(p, { apiKey: key.value })).status).toBe(200);
  });

  it('refuses an expired key with 401 errorCode 15', async () => {
    const p = platform();
    const token = await p.login();
    const expirationTime = Date.now() + 1000;
    const key = await createKey(p, token, { description: 'short lived', expirationTime });
    expect(key.expirationTime).toBe(expirationTime);
    expect((await me(p, { apiKey: key.value })).status).toBe(200);

    await waitUntilPast(expirationTime);
    await expectTbError(await me(p, { apiKey: key.value }), 401, 15, 'expired');
    const shown = await okJson<ApiKeyJson>(p.http(`/api/apiKey/${key.id.id}`, { token }));
    expect(shown.expired).toBe(true);

    const past = await p.http('/api/apiKey', {
      method: 'POST',
      token,
      json: { description: 'born dead', expirationTime: Date.now() - 1000 },
    });
    await expectTbError(past, 400, 30, 'expirationTime');
  });

  it('revokes a key with DELETE, and refuses unknown keys', async () => {
    const p = platform();
    const token = await p.login();
    const key = await createKey(p, token, { description: 'revoke me' });
    const other = await createKey(p, token, { description: 'keep me' });
    // used just before: a key the server has seen stops working at once all the same
    expect((await me(p, { apiKey: key.value })).status).toBe(200);
    await okEmpty(p.http(`/api/apiKey/${key.id.id}`, { method: 'DELETE', token }));
    await expectTbError(await me(p, { apiKey: key.value }), 401, 10, 'Invalid API key');
    await expectTbError(await p.http(`/api/apiKey/${key.id.id}`, { token }), 404, 32);
    expect((await me(p, { apiKey: other.value })).status).toBe(200);

    await expectTbError(await me(p, { apiKey: `tb_${'A'.repeat(86)}` }), 401, 10, 'Invalid API key');
    await expectTbError(await me(p, { apiKey: key.value.slice(0, -1) }), 401, 10);
  });

  it('validates the create request', async () => {
    const p = platform();
    const token = await p.login();
    await expectTbError(
      await p.http('/api/apiKey', { method: 'POST', token, json: {} }),
      400,
      30,
      'description',
    );
    await expectTbError(
      await p.http('/api/apiKey', {
        method: 'POST',
        token,
        json: { description: 'x', expirationTime: 'soon' },
      }),
      400,
      30,
      'expirationTime',
    );
    await expectTbError(await p.http('/api/apiKey/not-a-uuid', { token }), 400, 31, 'id');
  });
});

describe('API key storage', () => {
  function filesOf(dir: string): { name: string; bytes: Buffer }[] {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => ({ name: e.name, bytes: readFileSync(join(e.parentPath, e.name)) }));
  }

  it('keeps only a SHA-256 of the value: not in the table, the journal, the snapshot or any other file', async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    const key = await createKey(p, token, { description: 'secret keeper' });
    const hash = createHash('sha256').update(key.value).digest('hex');
    const secretPart = key.value.slice(3);

    const rows = p.db.all<Record<string, unknown>>('SELECT * FROM api_keys');
    const row = rows.find((r) => r.id === key.id.id);
    expect(row?.key_hash).toBe(hash);
    expect(JSON.stringify(rows)).not.toContain(secretPart);

    // while running, the write is in the journal: the hash is there, the value is not
    const journal = filesOf(p.urls.dataDir).filter((f) => f.name.startsWith('journal-'));
    expect(journal.length).toBeGreaterThan(0);
    expect(journal.some((f) => f.bytes.includes(hash))).toBe(true);
    for (const f of filesOf(p.urls.dataDir)) {
      expect(f.bytes.includes(secretPart), f.name).toBe(false);
      expect(f.bytes.includes(Buffer.from(secretPart, 'base64url')), f.name).toBe(false);
    }

    await p.stop();
    const after = filesOf(p.urls.dataDir);
    expect(after.some((f) => f.bytes.includes(hash))).toBe(true);
    for (const f of after) {
      expect(f.bytes.includes(secretPart), f.name).toBe(false);
      expect(f.bytes.includes(Buffer.from(secretPart, 'base64url')), f.name).toBe(false);
    }
  });
});

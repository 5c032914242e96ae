import { describe, expect, it } from 'vitest';
import { parseHostHeader } from '../../../main/api/host-check.ts';
import { TENANT, rawRequest, useSharedPlatform, type TbError } from './api-kit.ts';

describe('Host header, parsed as RFC 9110 says', () => {
  const platform = useSharedPlatform();

  it('answers loopback names in every spelling, with or without a port', async () => {
    const p = platform();
    const port = new URL(p.urls.http).port;
    for (const host of [
      'localhost',
      `localhost:${port}`,
      'LocalHost',
      `127.0.0.1:${port}`,
      '[::1]',
      `[::1]:${port}`,
      '[0:0:0:0:0:0:0:1]',
      'localhost:',
    ]) {
      const ok = await rawRequest(p.urls.http, {
        path: '/api/auth/login',
        method: 'POST',
        headers: { host, 'content-type': 'application/json' },
        body: JSON.stringify(TENANT),
      });
      expect(ok.status, host).toBe(200);
      expect(JSON.parse(ok.body)).toHaveProperty('token');
    }
  });

  it('refuses malformed hosts with 400 and foreign ones with 421, always as ThingsBoard error JSON', async () => {
    const p = platform();
    const port = new URL(p.urls.http).port;
    const malformed = [
      `localhost:${port}@evil.com`,
      'localhost:8080@evil.com',
      `evil.com@localhost:${port}`,
      `user:pass@localhost:${port}`,
      'localhost:abc',
      'localhost:99999',
      `localhost:${port}:${port}`,
      'localhost:-1',
      'localhost:+80',
      '::1',
      '[::1',
      '[::1]x',
      '[::1]:80x',
      '[localhost]',
      '[v1.fe]',
      'localhost/evil.com',
      'localhost\\evil.com',
      'localhost#evil.com',
      'localhost?evil.com',
      'local host',
      '[127.0.0.1]',
    ];
    const foreign = [
      'evil.com',
      `evil.com:${port}`,
      'localhost.evil.com',
      '127.0.0.2',
      '[::2]',
      'localhost.',
    ];
    for (const [hosts, status] of [
      [malformed, 400],
      [foreign, 421],
    ] as const) {
      for (const host of hosts) {
        const res = await rawRequest(p.urls.http, {
          path: '/api/auth/login',
          method: 'POST',
          headers: { host, 'content-type': 'application/json' },
          body: JSON.stringify(TENANT),
        });
        expect(res.status, host).toBe(status);
        const body = JSON.parse(res.body) as TbError;
        expect(body).toMatchObject({ status, errorCode: status === 400 ? 31 : 20 });
        expect(body).not.toHaveProperty('token');
      }
    }
  });

  it('normalises IPv6 literals and drops the port', () => {
    expect(parseHostHeader('[0:0:0:0:0:0:0:1]:80')).toBe('[::1]');
    expect(parseHostHeader('Example.COM:443')).toBe('example.com');
    expect(parseHostHeader('localhost:8080@evil.com')).toBeNull();
    expect(parseHostHeader('')).toBeNull();
  });
});

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { JwtCodec, type JwtClaims } from '../../../../main/platform/auth/jwt.ts';

const claims = (exp: number): JwtClaims => ({
  sub: 'tenant@thingsboard.org',
  userId: 'u1',
  scopes: ['TENANT_ADMIN'],
  sessionId: 's1',
  tenantId: 't1',
  iss: 'thingsboard.io',
  iat: 1000,
  exp,
});

describe('JwtCodec', () => {
  it('signs HS512 tokens that verify with the same key and not with another', () => {
    const key = randomBytes(64);
    const token = new JwtCodec(key).sign(claims(2000));
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { alg: string };
    expect(header.alg).toBe('HS512');
    expect(new JwtCodec(key).verify(token, 1500)).toEqual({ ok: true, claims: claims(2000) });
    expect(new JwtCodec(randomBytes(64)).verify(token, 1500)).toEqual({ ok: false, reason: 'signature' });
  });

  it('reports expiry, also for a token it has verified before', () => {
    const codec = new JwtCodec(randomBytes(64));
    const token = codec.sign(claims(2000));
    expect(codec.verify(token, 1999).ok).toBe(true);
    expect(codec.verify(token, 2000)).toEqual({ ok: false, reason: 'expired' });
  });

  it('refuses a token whose payload was changed, and garbage', () => {
    const codec = new JwtCodec(randomBytes(64));
    const [h, , s] = codec.sign(claims(2000)).split('.');
    const forged = Buffer.from(JSON.stringify({ ...claims(2000), scopes: ['SYS_ADMIN'] })).toString(
      'base64url',
    );
    expect(codec.verify(`${h}.${forged}.${s}`, 1500)).toEqual({ ok: false, reason: 'signature' });
    expect(codec.verify('not-a-jwt', 1500)).toEqual({ ok: false, reason: 'malformed' });
  });
});

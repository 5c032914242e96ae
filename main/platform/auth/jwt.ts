import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

export interface JwtClaims {
  sub: string;
  userId: string;
  scopes: string[];
  sessionId: string;
  tenantId: string;
  customerId?: string;
  enabled?: boolean;
  isPublic?: boolean;
  iss: string;
  iat: number;
  /** Sandboard: issue time in ms, so a password change also outdates tokens issued earlier in the same second */
  iatMs?: number;
  exp: number;
  jti?: string;
}

export type VerifyResult =
  { ok: true; claims: JwtClaims } | { ok: false; reason: 'malformed' | 'signature' | 'expired' };

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS512', typ: 'JWT' })).toString('base64url');

const VERIFIED_CACHE_SIZE = 10_000;

/**
 * HS512 JSON Web Tokens, signed with the install's own key. Tokens already verified are remembered (by
 * their full text, which includes the signature), so a client that sends the same token on every
 * request pays for the HMAC once; expiry is still checked on every use.
 */
export class JwtCodec {
  private readonly key: KeyObject;
  private readonly verified = new Map<string, JwtClaims>();
  constructor(key: Buffer) {
    this.key = createSecretKey(key);
  }

  sign(claims: JwtClaims): string {
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    const signature = createHmac('sha512', this.key).update(`${HEADER}.${payload}`).digest('base64url');
    return `${HEADER}.${payload}.${signature}`;
  }

  verify(token: string, nowSec: number): VerifyResult {
    const known = this.verified.get(token);
    if (known) return known.exp <= nowSec ? { ok: false, reason: 'expired' } : { ok: true, claims: known };
    const parts = token.split('.');
    if (parts.length !== 3) return { ok: false, reason: 'malformed' };
    const [header, payload, signature] = parts as [string, string, string];
    const expected = createHmac('sha512', this.key).update(`${header}.${payload}`).digest();
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return { ok: false, reason: 'signature' };
    let claims: JwtClaims;
    try {
      const head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: string };
      if (head.alg !== 'HS512') return { ok: false, reason: 'malformed' };
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as JwtClaims;
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    if (typeof claims.exp !== 'number' || typeof claims.userId !== 'string')
      return { ok: false, reason: 'malformed' };
    if (claims.exp <= nowSec) return { ok: false, reason: 'expired' };
    if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, claims);
    return { ok: true, claims };
  }
}

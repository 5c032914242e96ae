import { createHmac, timingSafeEqual } from 'node:crypto';

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
  exp: number;
  jti?: string;
}

export type VerifyResult =
  { ok: true; claims: JwtClaims } | { ok: false; reason: 'malformed' | 'signature' | 'expired' };

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS512', typ: 'JWT' })).toString('base64url');

/** HS512 JSON Web Tokens, signed with the install's own key. */
export class JwtCodec {
  private readonly key: Buffer;
  constructor(key: Buffer) {
    this.key = key;
  }

  sign(claims: JwtClaims): string {
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    const signature = createHmac('sha512', this.key).update(`${HEADER}.${payload}`).digest('base64url');
    return `${HEADER}.${payload}.${signature}`;
  }

  verify(token: string, nowSec: number): VerifyResult {
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
    return { ok: true, claims };
  }
}

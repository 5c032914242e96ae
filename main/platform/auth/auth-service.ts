import { randomUUID } from 'node:crypto';
import { NULL_UUID, type Authority, type JwtPair } from '../../../shared/schemas/auth.ts';
import type { PlatformContext } from '../context.ts';
import { isPublicCustomer } from '../customers.ts';
import { ErrorCode, PlatformError, unauthorized } from '../errors.ts';
import type { UserRow, UserService } from '../users.ts';
import type { ApiKeyService } from './api-keys.ts';
import { JwtCodec, type JwtClaims } from './jwt.ts';
import { LoginRateLimiter } from './login-rate-limit.ts';
import { checkPasswordPolicy } from './password-policy.ts';
import type { Principal } from './principal.ts';

export interface AuthSettings {
  accessTokenTtlSec: number;
  refreshTokenTtlSec: number;
  issuer: string;
  loginMaxFailures: number;
  loginWindowMs: number;
}

const expired = (message: string) => new PlatformError(401, ErrorCode.JWT_TOKEN_EXPIRED, message);
const notActive = () => unauthorized('User account is not active');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Login, refresh and logout with HS512 JWTs, and authentication of every request (JWT or API key). */
export class AuthService {
  private readonly ctx: PlatformContext;
  private readonly users: UserService;
  private readonly apiKeys: ApiKeyService;
  private readonly jwt: JwtCodec;
  private readonly settings: AuthSettings;
  private readonly limiter: LoginRateLimiter;
  private readonly revoked = new Set<string>();

  constructor(
    ctx: PlatformContext,
    deps: { users: UserService; apiKeys: ApiKeyService; signingKey: Buffer },
    settings: AuthSettings,
  ) {
    this.ctx = ctx;
    this.users = deps.users;
    this.apiKeys = deps.apiKeys;
    this.jwt = new JwtCodec(deps.signingKey);
    this.settings = settings;
    this.limiter = new LoginRateLimiter(settings.loginMaxFailures, settings.loginWindowMs, ctx.now);
    for (const r of ctx.db.all<{ session_id: string }>(
      'SELECT session_id FROM revoked_sessions WHERE expires_at > ?',
      [ctx.now()],
    )) {
      this.revoked.add(r.session_id);
    }
  }

  get accessTokenTtlSec(): number {
    return this.settings.accessTokenTtlSec;
  }

  async login(username: string, password: string, client: string): Promise<JwtPair> {
    const wait = this.limiter.retryAfterMs(client);
    if (wait > 0) {
      throw new PlatformError(429, ErrorCode.TOO_MANY_REQUESTS, 'Too many login attempts, try again later', {
        'retry-after': String(Math.ceil(wait / 1000)),
      });
    }
    const user = await this.users.verifyPassword(username, password);
    if (!user) {
      this.limiter.recordFailure(client);
      throw unauthorized('Invalid username or password');
    }
    this.limiter.recordSuccess(client);
    return this.issueFor(user);
  }

  /** A fresh token pair of a new session for an enabled user (activation, an administrator's "login as"). */
  issueFor(user: UserRow): JwtPair {
    if (!user.enabled) throw notActive();
    return this.issue(user, randomUUID());
  }

  /**
   * ThingsBoard's public login: the public customer's id gives a token pair for its virtual user (no user
   * row, user id NULL_UUID), a customer user that sees what is assigned to the public customer.
   */
  loginPublic(publicId: string): JwtPair {
    if (!UUID.test(publicId) || !isPublicCustomer(this.ctx.db, publicId.toLowerCase()))
      throw unauthorized('Authentication Failed. Public Id is not valid.');
    return this.issuePublic(publicId.toLowerCase(), randomUUID());
  }

  async refresh(refreshToken: string): Promise<JwtPair> {
    const claims = this.verifyJwt(refreshToken, true);
    if (claims.isPublic) return this.issuePublic(this.publicCustomer(claims), claims.sessionId);
    return this.issue(this.activeUser(claims.userId), claims.sessionId);
  }

  async logout(p: Principal): Promise<void> {
    if (!p.sessionId) return;
    const sessionId = p.sessionId;
    const expiresAt = this.ctx.now() + this.settings.refreshTokenTtlSec * 1000;
    await this.ctx.db.write((w) => {
      w.run('DELETE FROM revoked_sessions WHERE expires_at <= ?', [this.ctx.now()]);
      w.run('INSERT OR REPLACE INTO revoked_sessions (session_id, user_id, expires_at) VALUES (?, ?, ?)', [
        sessionId,
        p.userId,
        expiresAt,
      ]);
    });
    this.revoked.add(sessionId);
  }

  /** A fresh pair after a password change; tokens issued before it stop working. */
  async changePassword(p: Principal, currentPassword: string, newPassword: string): Promise<JwtPair> {
    const user = await this.users.verifyPassword(p.email, currentPassword);
    if (!user) throw new PlatformError(400, ErrorCode.BAD_REQUEST_PARAMS, "Current password doesn't match!");
    checkPasswordPolicy(newPassword);
    if (newPassword === currentPassword)
      throw new PlatformError(
        400,
        ErrorCode.BAD_REQUEST_PARAMS,
        'New password should be different from existing!',
      );
    await this.users.setPassword(user.id, newPassword);
    return this.issue(this.users.findRow(user.id)!, randomUUID());
  }

  /** Reads X-Authorization (or Authorization): "Bearer <jwt>" or "ApiKey <key>". */
  authenticate(header: string | undefined): Principal {
    if (!header) throw unauthorized('Authentication failed: no credentials in the X-Authorization header');
    const space = header.indexOf(' ');
    const scheme = space > 0 ? header.slice(0, space).toLowerCase() : '';
    const value = space > 0 ? header.slice(space + 1).trim() : '';
    if (scheme === 'bearer' && value) {
      const claims = this.verifyJwt(value, false);
      if (claims.isPublic) return this.publicPrincipal(this.publicCustomer(claims), claims.sessionId);
      return this.principal(this.activeUser(claims.userId), claims.sessionId, 'JWT');
    }
    if (scheme === 'apikey' && value) {
      const check = this.apiKeys.check(value);
      if (!check.ok) {
        if (check.reason === 'expired')
          throw new PlatformError(401, ErrorCode.CREDENTIALS_EXPIRED, 'API key has expired');
        throw unauthorized(check.reason === 'disabled' ? 'API key is disabled' : 'Invalid API key');
      }
      return this.principal(this.activeUser(check.userId), null, 'API_KEY');
    }
    throw unauthorized('Authentication failed: use "Bearer <JWT>" or "ApiKey <key>"');
  }

  /** The user a credential stands for, while it exists and is enabled. */
  private activeUser(userId: string): UserRow {
    const user = this.users.findRow(userId);
    if (!user) throw unauthorized('User not found');
    if (!user.enabled) throw notActive();
    return user;
  }

  private principal(user: UserRow, sessionId: string | null, via: Principal['via']): Principal {
    return {
      userId: user.id,
      email: user.email,
      authority: user.authority,
      tenantId: this.ctx.tenantId,
      customerId: user.customer_id,
      sessionId,
      via,
    };
  }

  /** The public customer a public token was issued for, while it is still public. */
  private publicCustomer(claims: JwtClaims): string {
    const id = claims.customerId;
    if (!id || !isPublicCustomer(this.ctx.db, id))
      throw unauthorized('Authentication Failed. Public Id is not valid.');
    return id;
  }

  private publicPrincipal(customerId: string, sessionId: string): Principal {
    return {
      userId: NULL_UUID,
      email: customerId,
      authority: 'CUSTOMER_USER',
      tenantId: this.ctx.tenantId,
      customerId,
      sessionId,
      via: 'JWT',
      isPublic: true,
    };
  }

  private issuePublic(customerId: string, sessionId: string): JwtPair {
    const who = { sub: customerId, userId: NULL_UUID, authority: 'CUSTOMER_USER' as const, customerId };
    return this.signPair(who, sessionId, true);
  }

  private verifyJwt(token: string, refresh: boolean): JwtClaims {
    const result = this.jwt.verify(token, Math.floor(this.ctx.now() / 1000));
    if (!result.ok) {
      if (result.reason === 'expired') throw expired('Token has expired');
      throw unauthorized('Invalid JWT token');
    }
    const { claims } = result;
    const isRefresh = claims.scopes?.includes('REFRESH_TOKEN') ?? false;
    if (isRefresh !== refresh) throw unauthorized(refresh ? 'Invalid refresh token' : 'Invalid JWT token');
    if (this.revoked.has(claims.sessionId)) throw unauthorized('Token has been revoked (logged out)');
    const user = this.users.findRow(claims.userId);
    const issuedMs = typeof claims.iatMs === 'number' ? claims.iatMs : claims.iat * 1000;
    if (user && issuedMs < user.tokens_valid_from)
      throw expired('Token has expired: the password, role or access of this user changed');
    return claims;
  }

  private issue(user: UserRow, sessionId: string): JwtPair {
    const who = { sub: user.email, userId: user.id, authority: user.authority, customerId: user.customer_id };
    return this.signPair(who, sessionId, false);
  }

  /** An access and a refresh token; a public pair carries its customer in both, to be refreshed by it. */
  private signPair(
    who: { sub: string; userId: string; authority: Authority; customerId: string | null },
    sessionId: string,
    isPublic: boolean,
  ): JwtPair {
    const nowMs = this.ctx.now();
    const iat = Math.floor(nowMs / 1000);
    const base = {
      sub: who.sub,
      userId: who.userId,
      sessionId,
      tenantId: this.ctx.tenantId,
      ...(isPublic ? { customerId: who.customerId!, isPublic } : {}),
      iss: this.settings.issuer,
      iat,
      iatMs: nowMs,
    };
    const token = this.jwt.sign({
      ...base,
      scopes: [who.authority],
      ...(who.customerId ? { customerId: who.customerId } : {}),
      enabled: true,
      isPublic,
      exp: iat + this.settings.accessTokenTtlSec,
    });
    const refreshToken = this.jwt.sign({
      ...base,
      scopes: ['REFRESH_TOKEN'],
      exp: iat + this.settings.refreshTokenTtlSec,
      jti: randomUUID(),
    });
    return { token, refreshToken, scope: who.authority };
  }
}

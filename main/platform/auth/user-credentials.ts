import type { PlatformContext } from '../context.ts';
import { badRequestParams, notFound } from '../errors.ts';
import { randomAlphanumeric } from '../random-text.ts';
import {
  ACTIVATION_TOKEN_LENGTH,
  CREDENTIALS_TOKEN_TTL_MS,
  type UserRow,
  type UserService,
} from '../users.ts';
import { checkPasswordPolicy } from './password-policy.ts';
import { requireTenantAdmin, type Principal } from './principal.ts';

/** An activation link is renewed when it has less than this left (ThingsBoard: 15 minutes). */
const RENEW_BEFORE_MS = 15 * 60_000;

export type LinkTokenState = 'valid' | 'expired' | 'unknown';

/**
 * ThingsBoard's activation and password reset flows, answered locally: the links ThingsBoard mails are
 * returned by the REST calls (or logged by them); every password set here voids older tokens.
 */
export class UserCredentialsService {
  private readonly ctx: PlatformContext;
  private readonly users: UserService;

  constructor(ctx: PlatformContext, users: UserService) {
    this.ctx = ctx;
    this.users = users;
  }

  /** The activation token of a user not yet activated (renewed when it is about to expire), with its ttl. */
  async activationToken(userId: string, actor: Principal): Promise<{ token: string; ttlMs: number }> {
    requireTenantAdmin(actor);
    const user = this.users.findRow(userId);
    if (!user) throw notFound(`User with id [${userId}] is not found`);
    // waiting for activation: created without a password (the link sets the first one)
    if (user.password_hash !== null) throw badRequestParams('User is already activated!');
    const now = this.ctx.now();
    if (user.activate_token && (user.activate_token_exp ?? 0) - now >= RENEW_BEFORE_MS)
      return { token: user.activate_token, ttlMs: user.activate_token_exp! - now };
    const token = randomAlphanumeric(ACTIVATION_TOKEN_LENGTH);
    await this.ctx.db.write((w) =>
      w.run('UPDATE users SET activate_token = ?, activate_token_exp = ? WHERE id = ?', [
        token,
        now + CREDENTIALS_TOKEN_TTL_MS,
        userId,
      ]),
    );
    this.users.forget(userId);
    return { token, ttlMs: CREDENTIALS_TOKEN_TTL_MS };
  }

  activateTokenState(token: string): LinkTokenState {
    return this.state(this.byToken('activate_token', token)?.activate_token_exp);
  }

  resetTokenState(token: string): LinkTokenState {
    return this.state(this.byToken('reset_token', token)?.reset_token_exp);
  }

  /** Sets the first password of a user from its activation link; returns the user, now enabled. */
  async activate(token: string, password: string): Promise<UserRow> {
    checkPasswordPolicy(password);
    const user = this.byToken('activate_token', token);
    if (!user) throw badRequestParams(`Unable to find user credentials by activateToken [${token}]`);
    if (user.password_hash !== null) throw badRequestParams('User credentials already activated');
    if ((user.activate_token_exp ?? 0) <= this.ctx.now()) throw badRequestParams('Activation token expired');
    await this.users.setPassword(user.id, password, { activate: true });
    return this.users.findRow(user.id)!;
  }

  /** A reset token for an enabled user with this email; null for anyone else (the caller says nothing). */
  async requestReset(email: string): Promise<string | null> {
    const user = this.users.findRowByEmail(email);
    if (!user || !user.enabled || user.password_hash === null) return null;
    const token = randomAlphanumeric(ACTIVATION_TOKEN_LENGTH);
    await this.ctx.db.write((w) =>
      w.run('UPDATE users SET reset_token = ?, reset_token_exp = ? WHERE id = ?', [
        token,
        this.ctx.now() + CREDENTIALS_TOKEN_TTL_MS,
        user.id,
      ]),
    );
    this.users.forget(user.id);
    return token;
  }

  async resetPassword(token: string, password: string): Promise<void> {
    const user = this.byToken('reset_token', token);
    if (!user) throw badRequestParams('Invalid reset token!');
    if ((user.reset_token_exp ?? 0) <= this.ctx.now()) throw badRequestParams('Password reset token expired');
    checkPasswordPolicy(password);
    if (await this.users.passwordMatches(user, password))
      throw badRequestParams('New password should be different from existing!');
    await this.users.setPassword(user.id, password);
  }

  private byToken(column: 'activate_token' | 'reset_token', token: string): UserRow | undefined {
    return this.ctx.db.get<UserRow>(`SELECT * FROM users WHERE ${column} = ?`, [token]);
  }

  private state(expiresAt: number | null | undefined): LinkTokenState {
    if (expiresAt === undefined) return 'unknown';
    return (expiresAt ?? 0) > this.ctx.now() ? 'valid' : 'expired';
  }
}

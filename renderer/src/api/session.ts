import type { JwtPair } from '../../../shared/schemas/auth.ts';

/** Where the session lives between reloads of the tab; the API explorer reads the same entry. */
export const SESSION_STORAGE_KEY = 'sandboard.auth';

export interface Session {
  token: string;
  refreshToken: string;
  /** when the access token stops being accepted, on this machine's clock (epoch ms) */
  expiresAt: number;
  /** the token's lifetime in ms (exp - iat) */
  lifetimeMs: number;
  userId: string;
  authority: string;
  email: string;
}

interface JwtClaims {
  sub?: string;
  userId?: string;
  scopes?: string[];
  iat?: number;
  exp?: number;
}

function decodeClaims(token: string): JwtClaims {
  const part = token.split('.')[1];
  if (!part) throw new Error('not a JWT');
  const base64 = part.replace(/-/g, '+').replace(/_/g, '/');
  const json = decodeURIComponent(
    Array.from(atob(base64), (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join(''),
  );
  return JSON.parse(json) as JwtClaims;
}

/**
 * Builds a session from a token pair. A pair received just now is timed on the local clock (its
 * lifetime from now), so a skewed clock does not refresh too late; a restored one uses `exp` as is.
 */
export function sessionFromPair(
  pair: Pick<JwtPair, 'token' | 'refreshToken'>,
  receivedNow: boolean,
): Session {
  const claims = decodeClaims(pair.token);
  const lifetimeMs = Math.max(0, ((claims.exp ?? 0) - (claims.iat ?? 0)) * 1000);
  const expiresAt = receivedNow ? Date.now() + lifetimeMs : (claims.exp ?? 0) * 1000;
  return {
    token: pair.token,
    refreshToken: pair.refreshToken,
    expiresAt,
    lifetimeMs,
    userId: claims.userId ?? '',
    authority: claims.scopes?.[0] ?? '',
    email: claims.sub ?? '',
  };
}

type Listener = (session: Session | null, reason?: string) => void;

/**
 * The session of this tab: in memory, mirrored to sessionStorage (never a cookie) so that a reload and
 * the embedded API explorer keep it.
 */
export class SessionStore {
  private current: Session | null = null;
  private readonly listeners = new Set<Listener>();
  private endReason: string | undefined;
  private readonly storage: Storage | undefined;

  constructor(storage: Storage | undefined = globalThis.sessionStorage) {
    this.storage = storage;
    try {
      const saved = JSON.parse(this.storage?.getItem(SESSION_STORAGE_KEY) ?? 'null') as {
        token?: string;
        refreshToken?: string;
      } | null;
      if (saved?.token && saved.refreshToken) {
        this.current = sessionFromPair({ token: saved.token, refreshToken: saved.refreshToken }, false);
      }
    } catch {
      this.storage?.removeItem(SESSION_STORAGE_KEY);
    }
  }

  get session(): Session | null {
    return this.current;
  }

  /** Why the last session ended, when it was not the user's own logout. */
  get lastEndReason(): string | undefined {
    return this.endReason;
  }

  set(pair: Pick<JwtPair, 'token' | 'refreshToken'>): Session {
    const session = sessionFromPair(pair, true);
    this.current = session;
    this.endReason = undefined;
    this.storage?.setItem(
      SESSION_STORAGE_KEY,
      JSON.stringify({ token: session.token, refreshToken: session.refreshToken }),
    );
    this.emit();
    return session;
  }

  /** Ends the session; `reason` is shown on the login page. */
  clear(reason?: string): void {
    if (!this.current && !reason) return;
    this.current = null;
    this.endReason = reason;
    this.storage?.removeItem(SESSION_STORAGE_KEY);
    this.emit(reason);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(reason?: string): void {
    for (const l of this.listeners) l(this.current, reason);
  }
}

import { useEffect } from 'react';
import { useApi, useSessionStore } from '../api/api-context.tsx';
import type { Session } from '../api/session.ts';

const RETRY_AFTER_FAILURE_MS = 10_000;

/** How long before expiry a token is renewed: a quarter of its lifetime, at most a minute. */
export function refreshMarginMs(session: Session): number {
  return Math.min(60_000, session.lifetimeMs / 4);
}

/**
 * Renews the access token shortly before it expires (POST /api/auth/token), so a user is never asked
 * to log in again while the refresh token lasts. A refused refresh ends the session (the client does).
 */
export function useSilentRefresh(): void {
  const client = useApi();
  const sessions = useSessionStore();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const schedule = (delayMs?: number) => {
      clearTimeout(timer);
      const session = sessions.session;
      if (!session) return;
      const due = session.expiresAt - refreshMarginMs(session) - Date.now();
      timer = setTimeout(run, Math.max(0, delayMs ?? due));
    };
    const run = () => {
      client.refreshSession().then(
        () => undefined, // the session store's change reschedules
        () => schedule(RETRY_AFTER_FAILURE_MS),
      );
    };
    // timers of a hidden tab may fire late: check again when it comes back
    const onVisible = () => {
      if (document.visibilityState === 'visible') schedule();
    };
    schedule();
    const unsubscribe = sessions.subscribe(() => schedule());
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      clearTimeout(timer);
      unsubscribe();
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [client, sessions]);
}

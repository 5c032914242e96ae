import { createContext, useContext, useSyncExternalStore, type ReactNode } from 'react';
import type { ApiClient } from './client.ts';
import type { Session, SessionStore } from './session.ts';

interface ApiContextValue {
  client: ApiClient;
  sessions: SessionStore;
}

const ApiContext = createContext<ApiContextValue | null>(null);

export function ApiProvider({ client, sessions, children }: ApiContextValue & { children: ReactNode }) {
  return <ApiContext.Provider value={{ client, sessions }}>{children}</ApiContext.Provider>;
}

function useApiContext(): ApiContextValue {
  const value = useContext(ApiContext);
  if (!value) throw new Error('useApi needs <ApiProvider>');
  return value;
}

/** The app's one API client. */
export function useApi(): ApiClient {
  return useApiContext().client;
}

export function useSessionStore(): SessionStore {
  return useApiContext().sessions;
}

/** The current session (null when logged out); re-renders when it changes (login, refresh, logout). */
export function useSession(): Session | null {
  const sessions = useSessionStore();
  return useSyncExternalStore(
    (onChange) => sessions.subscribe(onChange),
    () => sessions.session,
  );
}

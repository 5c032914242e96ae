import '@mantine/core/styles.css';
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode, useMemo, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiProvider } from './api/api-context.tsx';
import { ApiClient, ApiError } from './api/client.ts';
import { SessionStore } from './api/session.ts';
import { App } from './app.tsx';
import { useUiScale } from './shell/ui-scale.ts';
import { colorSchemeManager, cssVariablesResolver, themeAtScale } from './theme.ts';

const sessions = new SessionStore();
const client = new ApiClient(sessions);
const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // Live data comes through the WebSocket; refetching on focus would only duplicate it.
      refetchOnWindowFocus: false,
      retry: (failures, error) =>
        failures < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
    },
    mutations: { retry: false },
  },
});

// Another user (or none): nothing cached for the previous one may show. The store tells us before React
// renders the next screen.
let cachedFor = sessions.session?.userId ?? null;
sessions.subscribe((session) => {
  const userId = session?.userId ?? null;
  if (userId !== cachedFor) queryClient.clear();
  cachedFor = userId;
});

/** Mantine with the theme at the chosen UI scale. */
function ScaledMantine({ children }: { children: ReactNode }) {
  const scale = useUiScale();
  const theme = useMemo(() => themeAtScale(scale), [scale]);
  return (
    <MantineProvider
      theme={theme}
      colorSchemeManager={colorSchemeManager}
      cssVariablesResolver={cssVariablesResolver}
      defaultColorScheme="auto"
    >
      {children}
    </MantineProvider>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ScaledMantine>
      <QueryClientProvider client={queryClient}>
        <ApiProvider client={client} sessions={sessions}>
          <App />
        </ApiProvider>
      </QueryClientProvider>
    </ScaledMantine>
  </StrictMode>,
);

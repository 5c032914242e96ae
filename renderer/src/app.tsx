import { Center, Loader } from '@mantine/core';
import { lazy, Suspense } from 'react';
import { useSession } from './api/api-context.tsx';
import { LoginPage } from './auth/login-page.tsx';
import { useSilentRefresh } from './auth/use-silent-refresh.ts';
import { ErrorBoundary } from './components/error-boundary.tsx';
import { LiveProvider } from './live/live-provider.tsx';

// Everything behind the login (the shell, its pages, recharts) loads only after logging in.
const AppShellLayout = lazy(() => import('./shell/app-shell-layout.tsx'));

function FullPageLoader() {
  return (
    <Center mih="100vh">
      <Loader aria-label="Loading" />
    </Center>
  );
}

export function App() {
  const session = useSession();
  useSilentRefresh();

  return (
    <LiveProvider>
      {session ? (
        <ErrorBoundary>
          <Suspense fallback={<FullPageLoader />}>
            <AppShellLayout />
          </Suspense>
        </ErrorBoundary>
      ) : (
        <LoginPage />
      )}
    </LiveProvider>
  );
}

import { Center, Loader } from '@mantine/core';
import { lazy, Suspense } from 'react';
import { useSession } from './api/api-context.tsx';
import { LoginPage } from './auth/login-page.tsx';
import { useSilentRefresh } from './auth/use-silent-refresh.ts';
import { ErrorBoundary } from './components/error-boundary.tsx';
import { LiveProvider } from './live/live-provider.tsx';
import { publicDashboardLink } from './pages/dashboards/public-dashboard-link.ts';

// Everything behind the login (the shell, its pages, recharts) loads only after logging in.
const AppShellLayout = lazy(() => import('./shell/app-shell-layout.tsx'));
const PublicDashboardPage = lazy(() => import('./pages/dashboards/public-dashboard-page.tsx'));

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
  const publicLink = publicDashboardLink(window.location);

  if (publicLink)
    return (
      <ErrorBoundary>
        <Suspense fallback={<FullPageLoader />}>
          <PublicDashboardPage id={publicLink.id} publicId={publicLink.publicId} />
        </Suspense>
      </ErrorBoundary>
    );
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

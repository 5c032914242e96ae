import {
  Anchor,
  AppShell,
  Burger,
  Center,
  Group,
  Loader,
  NavLink,
  ScrollArea,
  Text,
  Title,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Suspense, useEffect } from 'react';
import { ErrorBoundary } from '../components/error-boundary.tsx';
import { PageReady } from '../components/page-ready.tsx';
import { Link, navigate, usePath } from '../router.tsx';
import { GuidedTour } from '../tour/guided-tour.tsx';
import { DesktopPortsBanner } from './desktop-ports-banner.tsx';
import { LiveStatusBadge } from './live-status-badge.tsx';
import { DEFAULT_PATH, PAGES, matchPage } from './page-catalog.ts';
import { PAGE_BADGES, PAGE_COMPONENTS } from './page-components.ts';
import { ThemeToggle } from './theme-toggle.tsx';
import { UserMenu } from './user-menu.tsx';

function NotFoundPage({ path }: { path: string }) {
  return (
    <>
      <PageReady page="not-found" />
      <Title order={2}>No such page</Title>
      <Text c="dimmed" mt="sm">
        Nothing lives at <code>{path}</code>.{' '}
        <Anchor component={Link} to={DEFAULT_PATH}>
          Go to the overview
        </Anchor>
        .
      </Text>
    </>
  );
}

function badge(id: keyof typeof PAGE_BADGES) {
  const Badge = PAGE_BADGES[id];
  return Badge ? <Badge /> : undefined;
}

/** The logged-in app: header, navigation, and the current page. */
export default function AppShellLayout() {
  const path = usePath();
  const [navOpen, nav] = useDisclosure(false);
  const match = matchPage(path);

  useEffect(() => {
    if (path === '/' || path === '') navigate(DEFAULT_PATH, { replace: true });
  }, [path]);
  useEffect(() => nav.close(), [path, nav]);
  useEffect(() => {
    document.title = match ? `${match.page.label} · Sandboard` : 'Sandboard';
  }, [match]);

  const Page = match ? PAGE_COMPONENTS[match.page.id] : undefined;
  const activeNav = match?.page.nav ? match.page.id : (match?.page.parent ?? null);

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 240, breakpoint: 'sm', collapsed: { mobile: !navOpen } }}
      padding="lg"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={navOpen} onClick={nav.toggle} hiddenFrom="sm" size="sm" aria-label="Navigation" />
            <Text fw={700} size="lg">
              Sandboard
            </Text>
            <LiveStatusBadge />
          </Group>
          <Group gap="sm" wrap="nowrap">
            <ThemeToggle />
            <UserMenu />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Pages">
        <AppShell.Section grow component={ScrollArea}>
          {PAGES.filter((p) => p.nav).map((p) => (
            <NavLink
              key={p.id}
              component={Link}
              to={p.path}
              label={p.label}
              rightSection={badge(p.id)}
              active={activeNav === p.id}
              aria-current={activeNav === p.id ? 'page' : undefined}
              data-testid={`nav-${p.id}`}
            />
          ))}
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main>
        <DesktopPortsBanner />
        <ErrorBoundary resetKey={path}>
          <Suspense
            fallback={
              <Center py="xl">
                <Loader aria-label="Loading page" />
              </Center>
            }
          >
            {Page && match ? (
              <>
                <Page params={match.params} />
                <PageReady key={path} page={match.page.id} />
              </>
            ) : path !== '/' ? (
              <NotFoundPage path={path} />
            ) : null}
          </Suspense>
        </ErrorBoundary>
      </AppShell.Main>
      <GuidedTour />
    </AppShell>
  );
}

import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

export interface PageParams {
  [name: string]: string;
}

export interface PageDef {
  id: string;
  label: string;
  /** a path pattern: /devices/:id */
  path: string;
  /** shown in the navigation (detail pages are not) */
  nav: boolean;
  /** a detail page: the navigation entry it belongs under */
  parent?: string;
  component: LazyExoticComponent<ComponentType<{ params: PageParams }>>;
}

// Each page is its own chunk, loaded when first opened.
export const PAGES: PageDef[] = [
  {
    id: 'overview',
    label: 'Overview',
    path: '/overview',
    nav: true,
    component: lazy(() => import('../pages/overview-page.tsx')),
  },
  {
    id: 'devices',
    label: 'Devices',
    path: '/devices',
    nav: true,
    component: lazy(() => import('../pages/devices/devices-page.tsx')),
  },
  {
    id: 'device',
    label: 'Device',
    path: '/devices/:id',
    nav: false,
    parent: 'devices',
    component: lazy(() => import('../pages/devices/device-detail-page.tsx')),
  },
  {
    id: 'device-profiles',
    label: 'Device profiles',
    path: '/device-profiles',
    nav: true,
    component: lazy(() => import('../pages/device-profiles/device-profiles-page.tsx')),
  },
  {
    id: 'device-profile',
    label: 'Device profile',
    path: '/device-profiles/:id',
    nav: false,
    parent: 'device-profiles',
    component: lazy(() => import('../pages/device-profiles/device-profile-detail-page.tsx')),
  },
  {
    id: 'gateways',
    label: 'Gateways & Simulation',
    path: '/gateways',
    nav: true,
    component: lazy(() => import('../pages/gateways-page.tsx')),
  },
  {
    id: 'simulation',
    label: 'Simulation',
    path: '/gateways/:id',
    nav: false,
    parent: 'gateways',
    component: lazy(() => import('../pages/simulation/simulation-detail-page.tsx')),
  },
  {
    id: 'rest-connector',
    label: 'REST Connector',
    path: '/rest-connector',
    nav: true,
    component: lazy(() => import('../pages/rest-connector/rest-connector-page.tsx')),
  },
  {
    id: 'rule-chains',
    label: 'Rule Chains',
    path: '/rule-chains',
    nav: true,
    component: lazy(() => import('../pages/rule-chains-page.tsx')),
  },
  {
    id: 'edges',
    label: 'Edges',
    path: '/edges',
    nav: true,
    component: lazy(() => import('../pages/edges-page.tsx')),
  },
  {
    id: 'reports',
    label: 'Reports',
    path: '/reports',
    nav: true,
    component: lazy(() => import('../pages/reports/reports-page.tsx')),
  },
  {
    id: 'security',
    label: 'Security',
    path: '/security',
    nav: true,
    component: lazy(() => import('../pages/security/security-page.tsx')),
  },
  {
    id: 'api-explorer',
    label: 'API Explorer',
    path: '/api-explorer',
    nav: true,
    component: lazy(() => import('../pages/api-explorer-page.tsx')),
  },
  {
    id: 'settings',
    label: 'Settings',
    path: '/settings',
    nav: true,
    component: lazy(() => import('../pages/settings-page.tsx')),
  },
];

export const DEFAULT_PATH = '/overview';

/** The page for a path, with its parameters; null for an unknown path. */
export function matchPage(path: string): { page: PageDef; params: PageParams } | null {
  const parts = path.replace(/\/+$/, '').split('/');
  for (const page of PAGES) {
    const pattern = page.path.split('/');
    if (pattern.length !== parts.length) continue;
    const params: PageParams = {};
    let ok = true;
    pattern.forEach((seg, i) => {
      const part = parts[i] ?? '';
      if (seg.startsWith(':')) {
        if (!part) ok = false;
        else params[seg.slice(1)] = decodeURIComponent(part);
      } else if (seg !== part) ok = false;
    });
    if (ok) return { page, params };
  }
  return null;
}

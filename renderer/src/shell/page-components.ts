import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { PageId, PageParams } from './page-catalog.ts';

// Each page is its own chunk, loaded when first opened.
export const PAGE_COMPONENTS: Record<PageId, LazyExoticComponent<ComponentType<{ params: PageParams }>>> = {
  overview: lazy(() => import('../pages/overview-page.tsx')),
  devices: lazy(() => import('../pages/devices/devices-page.tsx')),
  device: lazy(() => import('../pages/devices/device-detail-page.tsx')),
  'device-profiles': lazy(() => import('../pages/device-profiles/device-profiles-page.tsx')),
  'device-profile': lazy(() => import('../pages/device-profiles/device-profile-detail-page.tsx')),
  gateways: lazy(() => import('../pages/gateways-page.tsx')),
  simulation: lazy(() => import('../pages/simulation/simulation-detail-page.tsx')),
  'rest-connector': lazy(() => import('../pages/rest-connector/rest-connector-page.tsx')),
  'rule-chains': lazy(() => import('../pages/rule-chains-page.tsx')),
  edges: lazy(() => import('../pages/edges-page.tsx')),
  reports: lazy(() => import('../pages/reports/reports-page.tsx')),
  security: lazy(() => import('../pages/security/security-page.tsx')),
  'api-explorer': lazy(() => import('../pages/api-explorer-page.tsx')),
  settings: lazy(() => import('../pages/settings-page.tsx')),
};

import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { AlarmCountBadge } from './alarm-count-badge.tsx';
import type { PageId, PageParams } from './page-catalog.ts';

// Each page is its own chunk, loaded when first opened.
export const PAGE_COMPONENTS: Record<PageId, LazyExoticComponent<ComponentType<{ params: PageParams }>>> = {
  overview: lazy(() => import('../pages/overview-page.tsx')),
  'start-here': lazy(() => import('../pages/start-here/start-here-page.tsx')),
  devices: lazy(() => import('../pages/devices/devices-page.tsx')),
  device: lazy(() => import('../pages/devices/device-detail-page.tsx')),
  'device-profiles': lazy(() => import('../pages/device-profiles/device-profiles-page.tsx')),
  'device-profile': lazy(() => import('../pages/device-profiles/device-profile-detail-page.tsx')),
  assets: lazy(() => import('../pages/assets/assets-page.tsx')),
  asset: lazy(() => import('../pages/assets/asset-detail-page.tsx')),
  alarms: lazy(() => import('../pages/alarms/alarms-page.tsx')),
  dashboards: lazy(() => import('../pages/dashboards/dashboards-page.tsx')),
  dashboard: lazy(() => import('../pages/dashboards/dashboard-page.tsx')),
  ota: lazy(() => import('../pages/ota/ota-page.tsx')),
  mqtt: lazy(() => import('../pages/mqtt/mqtt-page.tsx')),
  recordings: lazy(() => import('../pages/recordings/recordings-page.tsx')),
  gateways: lazy(() => import('../pages/gateways-page.tsx')),
  simulation: lazy(() => import('../pages/simulation/simulation-detail-page.tsx')),
  replay: lazy(() => import('../pages/recordings/replay-page.tsx')),
  'rest-connector': lazy(() => import('../pages/rest-connector/rest-connector-page.tsx')),
  'rule-chains': lazy(() => import('../pages/rule-chains-page.tsx')),
  edges: lazy(() => import('../pages/edges-page.tsx')),
  reports: lazy(() => import('../pages/reports/reports-page.tsx')),
  security: lazy(() => import('../pages/security/security-page.tsx')),
  'api-explorer': lazy(() => import('../pages/api-explorer-page.tsx')),
  sandbox: lazy(() => import('../pages/sandbox/sandbox-page.tsx')),
  settings: lazy(() => import('../pages/settings-page.tsx')),
};

/** What a navigation entry shows beside its label (a live count). */
export const PAGE_BADGES: Partial<Record<PageId, ComponentType>> = {
  alarms: AlarmCountBadge,
};

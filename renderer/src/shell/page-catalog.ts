/**
 * The app's pages: id, title, path and place in the navigation. Data only (no components), so the
 * pages themselves and the e2e specs can read it without an import circle; each page's component is
 * in page-components.ts. A new page is one line here and one there (the compiler asks for both); the
 * e2e accessibility, clipping and screenshot specs then visit it too.
 */
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
}

const PAGE_LIST = [
  { id: 'overview', label: 'Overview', path: '/overview', nav: true },
  { id: 'start-here', label: 'Start here', path: '/start-here', nav: true },
  { id: 'devices', label: 'Devices', path: '/devices', nav: true },
  { id: 'device', label: 'Device', path: '/devices/:id', nav: false, parent: 'devices' },
  { id: 'device-profiles', label: 'Device profiles', path: '/device-profiles', nav: true },
  {
    id: 'device-profile',
    label: 'Device profile',
    path: '/device-profiles/:id',
    nav: false,
    parent: 'device-profiles',
  },
  { id: 'assets', label: 'Assets', path: '/assets', nav: true },
  { id: 'asset', label: 'Asset', path: '/assets/:id', nav: false, parent: 'assets' },
  { id: 'alarms', label: 'Alarms', path: '/alarms', nav: true },
  { id: 'dashboards', label: 'Dashboards', path: '/dashboards', nav: true },
  { id: 'dashboard', label: 'Dashboard', path: '/dashboards/:id', nav: false, parent: 'dashboards' },
  { id: 'ota', label: 'OTA updates', path: '/ota', nav: true },
  { id: 'mqtt', label: 'MQTT', path: '/mqtt', nav: true },
  { id: 'recordings', label: 'Recordings', path: '/recordings', nav: true },
  { id: 'gateways', label: 'Gateways & Simulation', path: '/gateways', nav: true },
  { id: 'simulation', label: 'Simulation', path: '/gateways/:id', nav: false, parent: 'gateways' },
  { id: 'replay', label: 'Replay', path: '/replay', nav: true },
  { id: 'rest-connector', label: 'REST Connector', path: '/rest-connector', nav: true },
  { id: 'rule-chains', label: 'Rule Chains', path: '/rule-chains', nav: true },
  { id: 'edges', label: 'Edges', path: '/edges', nav: true },
  { id: 'reports', label: 'Reports', path: '/reports', nav: true },
  { id: 'security', label: 'Security', path: '/security', nav: true },
  { id: 'api-explorer', label: 'API Explorer', path: '/api-explorer', nav: true },
  { id: 'sandbox', label: 'Sandbox', path: '/sandbox', nav: true },
  { id: 'settings', label: 'Settings', path: '/settings', nav: true },
] as const satisfies readonly PageDef[];

export type PageId = (typeof PAGE_LIST)[number]['id'];

export const PAGES: readonly (PageDef & { id: PageId })[] = PAGE_LIST;

export const DEFAULT_PATH = '/overview';

/** The page for a path, with its parameters; null for an unknown path. */
export function matchPage(path: string): { page: (typeof PAGES)[number]; params: PageParams } | null {
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

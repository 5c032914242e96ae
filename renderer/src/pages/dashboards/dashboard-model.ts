/**
 * ThingsBoard's dashboard JSON (ui-ngx shared/models dashboard.models.ts, widget.models.ts,
 * alias.models.ts), as far as the dashboard page reads it. Everything is optional on the way in: an
 * exported dashboard of any 3.x/4.x version, or one written by hand, opens; what a field lacks falls
 * back to ThingsBoard's default.
 */

import { widgetTypeFullFqn } from '../../../../shared/dashboards/widget-catalog.ts';

export interface TbEntityId {
  entityType: string;
  id: string;
}

export type DataKeyType = 'timeseries' | 'attribute' | 'entityField' | 'alarm' | 'function' | 'count';

export interface DataKey {
  name: string;
  type: DataKeyType;
  label?: string;
  color?: string;
  units?: string;
  decimals?: number;
  usePostProcessing?: boolean;
  postFuncBody?: string;
  settings?: Record<string, unknown>;
}

export interface Datasource {
  type?: string;
  name?: string;
  entityAliasId?: string;
  deviceId?: string;
  dataKeys?: DataKey[];
  latestDataKeys?: DataKey[];
}

export interface WidgetAction {
  id?: string;
  name?: string;
  type?: string;
  targetDashboardStateId?: string;
  setEntityId?: boolean;
  stateEntityParamName?: string | null;
  openRightLayout?: boolean;
}

export interface Timewindow {
  displayValue?: string;
  selectedTab?: number;
  realtime?: { realtimeType?: number; timewindowMs?: number; interval?: number; quickInterval?: string };
  history?: {
    historyType?: number;
    timewindowMs?: number;
    interval?: number;
    fixedTimewindow?: { startTimeMs: number; endTimeMs: number };
    quickInterval?: string;
  };
  aggregation?: { type?: string; limit?: number };
}

export interface WidgetConfig {
  title?: string;
  showTitle?: boolean;
  datasources?: Datasource[];
  alarmSource?: Datasource;
  timewindow?: Timewindow;
  useDashboardTimewindow?: boolean;
  settings?: Record<string, unknown>;
  units?: string;
  decimals?: number;
  actions?: Record<string, WidgetAction[]>;
  targetDevice?: { type?: string; deviceId?: string; entityAliasId?: string };
  targetDeviceAliasIds?: string[];
  alarmStatusList?: string[];
  alarmSeverityList?: string[];
  alarmTypeList?: string[];
  [more: string]: unknown;
}

export interface Widget {
  id?: string;
  typeFullFqn?: string;
  bundleAlias?: string;
  typeAlias?: string;
  isSystemType?: boolean;
  type?: string;
  sizeX?: number;
  sizeY?: number;
  row?: number;
  col?: number;
  config: WidgetConfig;
}

export interface WidgetLayout {
  sizeX: number;
  sizeY: number;
  row: number;
  col: number;
}

export interface DashboardLayout {
  widgets: Record<string, WidgetLayout>;
  gridSettings?: { columns?: number; [more: string]: unknown };
}

export interface DashboardState {
  name: string;
  root?: boolean;
  layouts: { main: DashboardLayout; right?: DashboardLayout };
}

export interface AliasFilter {
  type: string;
  resolveMultiple?: boolean;
  singleEntity?: TbEntityId;
  entityType?: string;
  entityList?: string[];
  entityNameFilter?: string;
  deviceType?: string;
  deviceTypes?: string[];
  deviceNameFilter?: string;
  assetType?: string;
  assetTypes?: string[];
  assetNameFilter?: string;
  rootStateEntity?: boolean;
  stateEntityParamName?: string | null;
  defaultStateEntity?: TbEntityId | null;
  rootEntity?: TbEntityId;
  direction?: 'FROM' | 'TO';
  maxLevel?: number;
  fetchLastLevelOnly?: boolean;
  filters?: { relationType?: string; entityTypes?: string[] }[];
}

export interface EntityAlias {
  id: string;
  alias: string;
  filter: AliasFilter;
}

export interface DashboardConfiguration {
  description?: string;
  widgets: Record<string, Widget>;
  states: Record<string, DashboardState>;
  entityAliases: Record<string, EntityAlias>;
  filters?: Record<string, unknown>;
  timewindow?: Timewindow;
  settings?: Record<string, unknown>;
  [more: string]: unknown;
}

export interface Dashboard {
  id?: TbEntityId;
  createdTime?: number;
  title: string;
  name?: string;
  image?: string | null;
  mobileHide?: boolean;
  configuration: DashboardConfiguration;
  [more: string]: unknown;
}

export const GRID_COLUMNS = 24;
export const DEFAULT_STATE_ID = 'default';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A widget's type, fully qualified as ThingsBoard 3.6+ names it (older exports carry bundle and alias). */
export function widgetFqn(widget: Widget): string {
  return widgetTypeFullFqn(widget) ?? widget.typeFullFqn ?? 'unknown';
}

const num = (v: unknown, fallback: number, min: number, max: number): number => {
  const n = Number(v);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, Math.round(n))) : fallback;
};

/**
 * A dashboard as imported or fetched, made whole: widgets by id, at least the default state, every
 * widget of a state laid out. Throws an Error naming what is wrong with a file that is no dashboard.
 */
export function normalizeDashboard(input: unknown): Dashboard {
  if (!isObject(input)) throw new Error('A dashboard is a JSON object');
  const title =
    typeof input.title === 'string' ? input.title : typeof input.name === 'string' ? input.name : '';
  if (!title.trim()) throw new Error('title: a dashboard needs a title');
  const raw = isObject(input.configuration) ? input.configuration : {};
  const widgets: Record<string, Widget> = {};
  const rawWidgets = Array.isArray(raw.widgets)
    ? raw.widgets
    : isObject(raw.widgets)
      ? Object.values(raw.widgets)
      : [];
  const rawKeys = isObject(raw.widgets) ? Object.keys(raw.widgets) : [];
  rawWidgets.forEach((w, i) => {
    if (!isObject(w)) return;
    const id = typeof w.id === 'string' ? w.id : (rawKeys[i] ?? `widget-${i}`);
    widgets[id] = {
      ...(w as unknown as Widget),
      id,
      config: isObject(w.config) ? (w.config as WidgetConfig) : {},
    };
  });
  const states: Record<string, DashboardState> = {};
  if (isObject(raw.states))
    for (const [id, s] of Object.entries(raw.states)) {
      if (!isObject(s)) continue;
      const layouts = isObject(s.layouts) ? s.layouts : {};
      const main = isObject(layouts.main) ? layouts.main : {};
      states[id] = {
        name: typeof s.name === 'string' ? s.name : id,
        root: s.root === true,
        layouts: {
          main: {
            widgets: layoutWidgets(main.widgets),
            gridSettings: isObject(main.gridSettings) ? main.gridSettings : undefined,
          },
        },
      };
    }
  if (Object.keys(states).length === 0) {
    // a dashboard without states: every widget on the default state, where it says it is
    const layout: Record<string, WidgetLayout> = {};
    for (const [id, w] of Object.entries(widgets)) layout[id] = layoutOf(w);
    states[DEFAULT_STATE_ID] = { name: title, root: true, layouts: { main: { widgets: layout } } };
  }
  if (!Object.values(states).some((s) => s.root)) Object.values(states)[0]!.root = true;
  const entityAliases: Record<string, EntityAlias> = {};
  if (isObject(raw.entityAliases))
    for (const [id, a] of Object.entries(raw.entityAliases))
      if (isObject(a) && isObject(a.filter))
        entityAliases[id] = {
          id,
          alias: typeof a.alias === 'string' ? a.alias : id,
          filter: a.filter as unknown as AliasFilter,
        };
  return {
    ...(input as Record<string, unknown>),
    title,
    configuration: {
      ...raw,
      widgets,
      states,
      entityAliases,
      timewindow: isObject(raw.timewindow) ? (raw.timewindow as Timewindow) : undefined,
      settings: isObject(raw.settings) ? raw.settings : {},
    },
  } as Dashboard;
}

function layoutOf(w: Partial<WidgetLayout> | Record<string, unknown>): WidgetLayout {
  return {
    sizeX: num(w.sizeX, 8, 1, GRID_COLUMNS),
    sizeY: num(w.sizeY, 6, 1, 200),
    row: num(w.row, 0, 0, 10_000),
    col: num(w.col, 0, 0, GRID_COLUMNS - 1),
  };
}

function layoutWidgets(v: unknown): Record<string, WidgetLayout> {
  const out: Record<string, WidgetLayout> = {};
  if (isObject(v)) for (const [id, l] of Object.entries(v)) if (isObject(l)) out[id] = layoutOf(l);
  return out;
}

/** The state a dashboard opens on: the root state (ThingsBoard's default state). */
export function rootStateId(d: Dashboard): string {
  const states = d.configuration.states;
  return Object.entries(states).find(([, s]) => s.root)?.[0] ?? Object.keys(states)[0] ?? DEFAULT_STATE_ID;
}

/** The dashboard as ThingsBoard exports it (the server's bookkeeping fields left out). */
export function exportDashboard(d: Dashboard): Record<string, unknown> {
  const {
    id: _id,
    createdTime: _c,
    tenantId: _t,
    assignedCustomers: _a,
    externalId: _e,
    version: _v,
    ...rest
  } = d;
  return { ...rest, title: d.title, configuration: d.configuration, name: d.title };
}

/** An empty dashboard of this title (one default state, no widgets). */
export function newDashboard(title: string): Dashboard {
  return {
    title,
    configuration: {
      description: '',
      widgets: {},
      states: {
        [DEFAULT_STATE_ID]: {
          name: title,
          root: true,
          layouts: { main: { widgets: {}, gridSettings: { columns: GRID_COLUMNS } } },
        },
      },
      entityAliases: {},
      filters: {},
      timewindow: {
        selectedTab: 0,
        realtime: { realtimeType: 0, timewindowMs: 60_000 },
        aggregation: { type: 'AVG', limit: 25_000 },
      },
      settings: { stateControllerId: 'entity', showTitle: false },
    },
  };
}

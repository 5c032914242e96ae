import type {
  AttributeScope,
  DeviceInfoPageQuery,
  DevicePageQuery,
  EdgeEventQuery,
  EdgePageQuery,
} from './client.ts';
import type { AlarmPageQuery, AssetPageQuery, EntityRef } from './entities-api.ts';
import type { SearchDirection } from '../../../shared/schemas/relations.ts';

/** A chart's time window: the last N milliseconds, sliding with the clock. */
export interface HistoryWindow {
  keys: string[];
  rangeMs: number;
}

/** Every React Query key of the app, so the live WebSocket updates exactly what the hooks read. */
export const queryKeys = {
  currentUser: ['currentUser'] as const,
  demoLogins: ['demoLogins'] as const,
  platformInfo: ['platformInfo'] as const,
  stats: ['stats'] as const,
  devicesAll: ['devices'] as const,
  devices: (query: DevicePageQuery, customerId: string | undefined) =>
    ['devices', customerId ?? '', query] as const,
  deviceInfos: (query: DeviceInfoPageQuery, customerId: string | undefined) =>
    ['devices', 'infos', customerId ?? '', query] as const,
  lastActivity: (ids: string[]) => ['devices', 'lastActivity', ids] as const,
  deviceTypes: ['devices', 'types'] as const,
  device: (id: string) => ['device', id] as const,
  credentials: (id: string) => ['credentials', id] as const,
  attributesAll: (id: string) => ['attributes', id] as const,
  attributes: (id: string, scope: AttributeScope) => ['attributes', id, scope] as const,
  timeseriesKeys: (id: string) => ['timeseriesKeys', id] as const,
  latestTelemetry: (id: string) => ['latestTelemetry', id] as const,
  historyAll: (id: string) => ['history', id] as const,
  history: (id: string, window: HistoryWindow) =>
    ['history', id, { keys: [...window.keys].sort(), rangeMs: window.rangeMs }] as const,
  apiKeys: (userId: string) => ['apiKeys', userId] as const,
  ruleChains: ['ruleChains'] as const,
  ruleChainMetadata: (id: string) => ['ruleChainMetadata', id] as const,
  customer: (id: string) => ['customer', id] as const,
  ruleNodeTypes: ['ruleNodeTypes'] as const,
  simulations: ['simulations'] as const,
  simulation: (id: string) => ['simulation', id] as const,
  simulationStatus: (id: string) => ['simulationStatus', id] as const,
  edgesAll: ['edges'] as const,
  edges: (query: EdgePageQuery) => ['edges', query] as const,
  edgeDevices: (edgeId: string) => ['edgeDevices', edgeId] as const,
  edgeQueueAll: (edgeId: string) => ['edgeQueue', edgeId] as const,
  edgeQueueCounts: (edgeId: string) => ['edgeQueue', edgeId, 'counts'] as const,
  edgeEvents: (edgeId: string, query: EdgeEventQuery) => ['edgeQueue', edgeId, 'events', query] as const,
  /** an edge's secret, kept in memory only from its creation (the server shows it once) */
  edgeSecretAll: ['edgeSecret'] as const,
  edgeSecret: (edgeId: string) => ['edgeSecret', edgeId] as const,
  edgeSimulators: ['edgeSimulators'] as const,
  edgeSimulator: (id: string) => ['edgeSimulator', id] as const,
};

/** Keys of assets, relations and alarms (entities-hooks.ts). */
export const entityKeys = {
  assetsAll: ['assets'] as const,
  assets: (query: AssetPageQuery, customerId: string | undefined) =>
    ['assets', customerId ?? '', query] as const,
  asset: (id: string) => ['asset', id] as const,
  assetProfiles: ['assetProfiles'] as const,
  relationsAll: ['relations'] as const,
  relations: (entity: EntityRef, direction: SearchDirection) => ['relations', entity.id, direction] as const,
  /** every alarm query: lists, counts, types (refetched when the WebSocket tells of a change) */
  alarmsAll: ['alarms'] as const,
  alarms: (query: AlarmPageQuery) => ['alarms', 'page', query] as const,
  alarmCount: ['alarms', 'activeCount'] as const,
  alarmTypes: ['alarms', 'types'] as const,
  alarmComments: (alarmId: string) => ['alarms', 'comments', alarmId] as const,
  alarmInfo: (alarmId: string) => ['alarms', 'info', alarmId] as const,
  entityOptions: (entityType: string, search: string) => ['entityOptions', entityType, search] as const,
};

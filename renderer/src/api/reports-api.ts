/**
 * Table views (saved report definitions), their live preview and report runs, the smart-building demo
 * loader, and the device catalog the view builder offers: typed with the server's TypeBox shapes and
 * sent through the one API client's request helper.
 */
import type { PageData } from '../../../shared/schemas/common.ts';
import type { Device, DeviceProfile } from '../../../shared/schemas/entities.ts';
import type {
  DateGrouping,
  DemoStatus,
  Dimension,
  MeasureAggregation,
  PreviewRequest,
  PreviewResponse,
  ReportResponse,
  SaveTableViewRequest,
  TableView,
  TableViewConfig,
  ViewFilter,
  ViewReportRequest,
} from '../../../shared/schemas/table-view.ts';
import type { AttributeData } from '../../../shared/schemas/telemetry.ts';
import type { ApiClient } from './client.ts';

export type {
  DateGrouping,
  DemoStatus,
  DeviceProfile,
  Dimension,
  MeasureAggregation,
  PreviewRequest,
  PreviewResponse,
  ReportResponse,
  SaveTableViewRequest,
  TableView,
  TableViewConfig,
  ViewFilter,
  ViewReportRequest,
};

const enc = encodeURIComponent;

export function tableViews(client: ApiClient, page = 0, pageSize = 100): Promise<PageData<TableView>> {
  return client.request('GET', '/api/tableViews', {
    query: { page, pageSize, sortProperty: 'name', sortOrder: 'ASC' },
  });
}

export function tableView(client: ApiClient, id: string): Promise<TableView> {
  return client.request('GET', `/api/tableView/${enc(id)}`);
}

/** Creates a view, or updates the one named by body.id; a 400 names the offending field. */
export function saveTableView(client: ApiClient, body: SaveTableViewRequest): Promise<TableView> {
  return client.request('POST', '/api/tableView', { body });
}

export function deleteTableView(client: ApiClient, id: string): Promise<void> {
  return client.request('DELETE', `/api/tableView/${enc(id)}`);
}

/** Runs an unsaved definition, cut at `limit` rows (429 when the report slots are full). */
export function previewTableView(client: ApiClient, body: PreviewRequest): Promise<PreviewResponse> {
  return client.request('POST', '/api/tableView/preview', { body });
}

/** Runs a saved view as the report API's buildReport does, with the same overrides. */
export function runTableView(
  client: ApiClient,
  id: string,
  overrides: ViewReportRequest,
): Promise<ReportResponse> {
  return client.request('POST', `/api/tableView/${enc(id)}/report`, { body: overrides });
}

export function smartBuildingDemoStatus(client: ApiClient): Promise<DemoStatus> {
  return client.request('GET', '/api/sandboard/demo/smart-building');
}

/** Starts loading the demo (idempotent) and answers at once with its progress. */
export function loadSmartBuildingDemo(client: ApiClient): Promise<DemoStatus> {
  return client.request('POST', '/api/sandboard/demo/smart-building');
}

// --- what the view builder offers -----------------------------------------------------------------

export function deviceProfiles(client: ApiClient, pageSize = 100): Promise<PageData<DeviceProfile>> {
  return client.request('GET', '/api/deviceProfiles', {
    query: { page: 0, pageSize, sortProperty: 'name', sortOrder: 'ASC' },
  });
}

/** The tenant's devices by name (optionally of one profile, by its name). */
export function tenantDevices(
  client: ApiClient,
  options: { pageSize?: number; type?: string; textSearch?: string } = {},
): Promise<PageData<Device>> {
  return client.request('GET', '/api/tenant/devices', {
    query: {
      page: 0,
      pageSize: options.pageSize ?? 1000,
      type: options.type,
      textSearch: options.textSearch,
      sortProperty: 'name',
      sortOrder: 'ASC',
    },
  });
}

/** A device's attributes of every scope. */
export function allAttributes(client: ApiClient, deviceId: string): Promise<AttributeData[]> {
  return client.request('GET', `/api/plugins/telemetry/DEVICE/${enc(deviceId)}/values/attributes`);
}

export function telemetryKeys(client: ApiClient, deviceId: string): Promise<string[]> {
  return client.request('GET', `/api/plugins/telemetry/DEVICE/${enc(deviceId)}/keys/timeseries`);
}

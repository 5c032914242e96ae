/**
 * ThingsBoard's dashboards over REST (DashboardController): list, read, save (create or update, the
 * whole JSON) and delete, through the one API client.
 */
import type { PageData } from '../../../shared/schemas/common.ts';
import type { Dashboard } from '../pages/dashboards/dashboard-model.ts';
import type { ApiClient } from './client.ts';

const enc = encodeURIComponent;

export interface DashboardInfo {
  id: { entityType: 'DASHBOARD'; id: string };
  createdTime: number;
  title: string;
  name?: string;
  assignedCustomers?: { customerId: { id: string }; title: string }[] | null;
}

export interface DashboardPageQuery {
  page: number;
  pageSize: number;
  textSearch?: string;
  sortProperty?: 'createdTime' | 'title';
  sortOrder?: 'ASC' | 'DESC';
}

/** The dashboards the user may see: the tenant's, or those assigned to the customer user's customer. */
export function dashboards(
  client: ApiClient,
  query: DashboardPageQuery,
  customerId?: string,
): Promise<PageData<DashboardInfo>> {
  const path = customerId ? `/api/customer/${enc(customerId)}/dashboards` : '/api/tenant/dashboards';
  return client.request('GET', path, { query: { ...query } });
}

export function dashboard(client: ApiClient, id: string): Promise<Dashboard> {
  return client.request('GET', `/api/dashboard/${enc(id)}`);
}

/** Creates (no id) or updates the dashboard; a 400 names what is wrong. */
export function saveDashboard(client: ApiClient, body: Dashboard): Promise<Dashboard> {
  return client.request('POST', '/api/dashboard', { body });
}

/** Assigns the dashboard to the public customer (its public link opens without a login), or takes it away. */
export function setDashboardPublic(client: ApiClient, id: string, isPublic: boolean): Promise<Dashboard> {
  return client.request(isPublic ? 'POST' : 'DELETE', `/api/customer/public/dashboard/${enc(id)}`);
}

export function deleteDashboard(client: ApiClient, id: string): Promise<void> {
  return client.request('DELETE', `/api/dashboard/${enc(id)}`);
}

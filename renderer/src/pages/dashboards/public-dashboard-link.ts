import type { Dashboard } from './dashboard-model.ts';

/** ThingsBoard's public link, /dashboard/{id}?publicId={customerId}: the dashboard id and the public id. */
export function publicDashboardLink(location: { pathname: string; search: string }) {
  const m = /^\/dashboard\/([0-9a-fA-F-]{36})\/?$/.exec(location.pathname);
  const publicId = new URLSearchParams(location.search).get('publicId');
  return m && publicId ? { id: m[1]!, publicId } : null;
}

interface Assigned {
  customerId: { id: string };
  public?: boolean;
}

/** The dashboard's public link, ThingsBoard's /dashboard/{id}?publicId={customerId}, when it is public. */
export function publicLinkOf(d: Dashboard, origin: string): string | null {
  const pub = (d.assignedCustomers as Assigned[] | undefined)?.find((c) => c.public);
  return pub && d.id ? `${origin}/dashboard/${d.id.id}?publicId=${pub.customerId.id}` : null;
}

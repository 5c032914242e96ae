/** ThingsBoard's public link, /dashboard/{id}?publicId={customerId}: the dashboard id and the public id. */
export function publicDashboardLink(location: { pathname: string; search: string }) {
  const m = /^\/dashboard\/([0-9a-fA-F-]{36})\/?$/.exec(location.pathname);
  const publicId = new URLSearchParams(location.search).get('publicId');
  return m && publicId ? { id: m[1]!, publicId } : null;
}

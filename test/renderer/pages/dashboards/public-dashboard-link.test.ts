/** ThingsBoard's public dashboard links open the dashboard alone, without a login. */
import { describe, expect, it } from 'vitest';
import { publicDashboardLink } from '../../../../renderer/src/pages/dashboards/public-dashboard-link.ts';

const ID = '784f394c-42b6-435a-983c-b7beff2784f9';
const PUBLIC_ID = '5e9c4a1e-1d8a-11ef-9d3c-6b2f3c1e4a70';

describe('public dashboard links', () => {
  it("read ThingsBoard's /dashboard/{id}?publicId={customerId}", () => {
    expect(publicDashboardLink({ pathname: `/dashboard/${ID}`, search: `?publicId=${PUBLIC_ID}` })).toEqual({
      id: ID,
      publicId: PUBLIC_ID,
    });
    expect(
      publicDashboardLink({ pathname: `/dashboard/${ID}/`, search: `?state=x&publicId=${PUBLIC_ID}` }),
    ).toEqual({ id: ID, publicId: PUBLIC_ID });
  });

  it("leave the app's own pages and links without a publicId to the login", () => {
    expect(publicDashboardLink({ pathname: `/dashboard/${ID}`, search: '' })).toBeNull();
    expect(
      publicDashboardLink({ pathname: `/dashboards/${ID}`, search: `?publicId=${PUBLIC_ID}` }),
    ).toBeNull();
    expect(
      publicDashboardLink({ pathname: '/dashboard/not-an-id', search: `?publicId=${PUBLIC_ID}` }),
    ).toBeNull();
  });
});

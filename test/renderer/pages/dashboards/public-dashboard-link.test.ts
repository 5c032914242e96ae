/** ThingsBoard's public dashboard links open the dashboard alone, without a login. */
import { describe, expect, it } from 'vitest';
import {
  publicDashboardLink,
  publicLinkOf,
} from '../../../../renderer/src/pages/dashboards/public-dashboard-link.ts';

const ID = '784f394c-42b6-435a-983c-b7beff2784f9';
const PUBLIC_ID = '5e9c4a1e-1d8a-11ef-9d3c-6b2f3c1e4a70';
const NULL = '0f5e3a52-2b8e-4f57-9a0e-6f7b0c3d2e11';

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

  it("are made from the dashboard's public customer, and only when it has one", () => {
    const d = {
      id: { entityType: 'DASHBOARD', id: ID },
      title: 'Lobby',
      configuration: {} as never,
      assignedCustomers: [
        { customerId: { entityType: 'CUSTOMER', id: NULL }, public: false },
        { customerId: { entityType: 'CUSTOMER', id: PUBLIC_ID }, public: true },
      ],
    };
    const link = publicLinkOf(d, 'http://127.0.0.1:8080');
    expect(link).toBe(`http://127.0.0.1:8080/dashboard/${ID}?publicId=${PUBLIC_ID}`);
    const url = new URL(link!);
    expect(publicDashboardLink(url)).toEqual({ id: ID, publicId: PUBLIC_ID });
    expect(publicLinkOf({ ...d, assignedCustomers: d.assignedCustomers.slice(0, 1) }, 'http://x')).toBeNull();
  });
});

import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FREE_PORTS, serveLogin, serveRest, startServe } from '../../helpers/serve-process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const EXPORT = JSON.parse(
  readFileSync(new URL('../../fixtures/dashboards/tb4-every-widget.json', import.meta.url), 'utf8'),
) as { configuration: unknown };

interface DashboardJson {
  id: { id: string };
  title: string;
  version: number;
  configuration: unknown;
  assignedCustomers: { title: string }[];
}

/**
 * `sandboard serve` killed with SIGKILL right after its answers: a dashboard import, an update, a public
 * assignment and the tenant's home dashboard, each answered 200, are all there after the restart.
 */
describe('dashboards under SIGKILL', () => {
  it('keeps every acknowledged dashboard write', { timeout: 120_000 }, async () => {
    const dir = tempDir('sandboard-dashboards-crash-');
    const serve = await startServe(['--data-dir', dir, ...FREE_PORTS]);
    const token = await serveLogin(serve);
    const post = <T>(path: string, json?: unknown) =>
      serveRest<T>(serve, path, {
        method: 'POST',
        token,
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });
    const imported = await post<DashboardJson>('/api/dashboard', EXPORT);
    const updated = await post<DashboardJson>('/api/dashboard', {
      ...imported,
      title: 'Renamed before the crash',
    });
    await post(`/api/customer/public/dashboard/${imported.id.id}`);
    await post('/api/tenant/dashboard/home/info', { dashboardId: imported.id, hideDashboardToolbar: false });
    serve.child.kill('SIGKILL');
    await once(serve.child, 'exit');

    const again = await startServe(['--data-dir', dir, ...FREE_PORTS]);
    const token2 = await serveLogin(again);
    const read = await serveRest<DashboardJson>(again, `/api/dashboard/${imported.id.id}`, { token: token2 });
    expect(read).toMatchObject({ title: 'Renamed before the crash', version: updated.version });
    expect(read.configuration).toEqual(EXPORT.configuration);
    expect(read.assignedCustomers.map((c) => c.title)).toEqual(['Public']);
    expect(await serveRest(again, '/api/tenant/dashboard/home/info', { token: token2 })).toEqual({
      dashboardId: imported.id,
      hideDashboardToolbar: false,
    });
  });
});

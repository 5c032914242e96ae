import { describe, expect, it, vi } from 'vitest';
import { startTestPlatform } from '../../helpers/platform.ts';

describe('edge sync demo', () => {
  it('wires push to edge, an edge, running simulated gateways and a simulated edge in one call', async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    const res = await p.http('/api/sandboard/demo/edge-sync', { method: 'POST', token });
    expect(res.status).toBe(200);
    const demo = (await res.json()) as {
      edgeId: string;
      assignedDevices: number;
      pushToEdgeNodeAdded: boolean;
      simulationRestarted: boolean;
    };
    expect(demo.pushToEdgeNodeAdded).toBe(true);
    expect(demo.simulationRestarted).toBe(false);
    expect(demo.assignedDevices).toBe(10);

    // The simulated gateways' telemetry passes Save Timeseries, the node queues it, the simulated edge takes it.
    await vi.waitFor(
      async () => {
        const counts = (await (await p.http(`/api/edge/${demo.edgeId}/queue`, { token })).json()) as {
          DELIVERED: number;
        };
        expect(counts.DELIVERED).toBeGreaterThan(0);
      },
      { timeout: 20_000, interval: 200 },
    );
    const events = (await (
      await p.http(`/api/edge/${demo.edgeId}/events?pageSize=5&page=0&status=DELIVERED`, { token })
    ).json()) as { data: { action: string; body: { data: Record<string, unknown>; ts: number } }[] };
    expect(events.data[0]!.action).toBe('TIMESERIES_UPDATED');
    expect(Object.keys(events.data[0]!.body.data).length).toBeGreaterThan(0);

    // A second click reuses the node and the running simulation, and makes a second edge.
    const again = (await (
      await p.http('/api/sandboard/demo/edge-sync', { method: 'POST', token })
    ).json()) as {
      edgeId: string;
      edgeName: string;
      pushToEdgeNodeAdded: boolean;
      simulationId: string;
      simulationRestarted: boolean;
    };
    expect(again.pushToEdgeNodeAdded).toBe(false);
    expect(again.edgeName).toBe('Demo edge 2');
    expect(again.edgeId).not.toBe(demo.edgeId);
    expect(again.simulationRestarted).toBe(false);

    // A simulation the user stopped is started again, and the answer says so.
    const stop = await p.http(`/api/sandboard/simulations/${again.simulationId}/stop`, {
      method: 'POST',
      token,
    });
    expect(stop.status, await stop.clone().text()).toBe(200);
    const third = (await (
      await p.http('/api/sandboard/demo/edge-sync', { method: 'POST', token })
    ).json()) as { simulationId: string; simulationRestarted: boolean };
    expect(third.simulationId).toBe(again.simulationId);
    expect(third.simulationRestarted).toBe(true);
  });
});

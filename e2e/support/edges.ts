import { expect, type RestClient } from './fixtures.ts';

const PUSH_TO_EDGE = 'org.thingsboard.rule.engine.edge.TbMsgPushToEdgeNode';

/** Routes telemetry posted through REST (TIMESERIES_UPDATED) to a push to edge node of the root chain. */
export async function pushRestTelemetryToEdges(rest: RestClient, jwt: string): Promise<void> {
  const auth = `Bearer ${jwt}`;
  const chains = (await (await rest.request('/api/ruleChains?page=0&pageSize=10', { auth })).json()) as {
    data: { id: { id: string }; root: boolean }[];
  };
  const root = chains.data.find((c) => c.root)!;
  const metadata = (await (await rest.request(`/api/ruleChain/${root.id.id}/metadata`, { auth })).json()) as {
    nodes: { type: string; [key: string]: unknown }[];
    connections: { fromIndex: number; toIndex: number; type: string }[];
  };
  metadata.nodes.push({
    type: PUSH_TO_EDGE,
    name: 'Push to edge',
    configuration: { scope: 'SERVER_SCOPE' },
    additionalInfo: { layoutX: 800, layoutY: 480 },
  });
  // from the root chain's message type switch (after the device profile node)
  metadata.connections.push({
    fromIndex: metadata.nodes.findIndex((n) => n.type.endsWith('.TbMsgTypeSwitchNode')),
    toIndex: metadata.nodes.length - 1,
    type: 'Timeseries Updated',
  });
  const saved = await rest.request('/api/ruleChain/metadata', { method: 'POST', json: metadata, auth });
  expect(saved.status, await saved.clone().text()).toBe(200);
}

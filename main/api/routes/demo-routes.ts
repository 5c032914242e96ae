import { readFileSync } from 'node:fs';
import { Type } from 'typebox';
import { NODE_TYPES, type RuleChainMetadata } from '../../../shared/rule-engine.ts';
import { deviceNames, type Scenario } from '../../../shared/schemas/simulation.ts';
import { requireTenantAdmin, type Principal } from '../../platform/auth/principal.ts';
import type { Services } from '../../platform/services.ts';
import type { RuleChainService } from '../../rule-engine/rule-chain-service.ts';
import type { EdgeSimulatorManager } from '../../simulator/edge-simulator-manager.ts';
import type { SimulationManager } from '../../simulator/simulation-manager.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, type Api } from '../route-types.ts';

const SAMPLE_SCENARIO = new URL('../../../shared/scenarios/smart-building-gateway.json', import.meta.url);
const DEMO_EDGE = 'Demo edge';

const EdgeSyncResult = Type.Object({
  edgeId: Type.String(),
  edgeName: Type.String(),
  simulationId: Type.String(),
  edgeSimulatorId: Type.String(),
  assignedDevices: Type.Integer(),
  pushToEdgeNodeAdded: Type.Boolean(),
  simulationRestarted: Type.Boolean({
    description: 'the sample simulation was there and stopped: this call started it again',
  }),
});

export interface DemoRouteDeps {
  services: Services;
  ruleChains: RuleChainService;
  simulations: SimulationManager;
  edgeSimulators: EdgeSimulatorManager;
}

/** Adds a push to edge node after Save Timeseries (Success) unless one is already there; true if added. */
export async function ensurePushToEdgeAfterSave(
  ruleChains: RuleChainService,
  actor: Principal,
): Promise<boolean> {
  const rootId = ruleChains.rootChainId();
  if (!rootId) throw new Error('No root rule chain');
  const md = ruleChains.metadata(rootId, actor) as RuleChainMetadata;
  const saveIndex = md.nodes.findIndex((n) => n.type === NODE_TYPES.saveTimeseries);
  if (saveIndex < 0) throw new Error('The root chain has no Save Timeseries node');
  const connections = md.connections ?? [];
  const linked = connections.some(
    (c) =>
      c.fromIndex === saveIndex &&
      c.type === 'Success' &&
      md.nodes[c.toIndex]?.type === NODE_TYPES.pushToEdge,
  );
  if (linked) return false;
  const save = md.nodes[saveIndex]!;
  const x = Number(save.additionalInfo?.layoutX ?? 800) + 300;
  const y = Number(save.additionalInfo?.layoutY ?? 80);
  md.nodes.push({
    type: NODE_TYPES.pushToEdge,
    name: 'Push to edge',
    debugMode: true,
    configuration: { scope: 'SERVER_SCOPE' },
    additionalInfo: { layoutX: x, layoutY: y },
  });
  md.connections = [...connections, { fromIndex: saveIndex, toIndex: md.nodes.length - 1, type: 'Success' }];
  await ruleChains.saveMetadata(rootId, md, actor);
  return true;
}

/**
 * The edge sync demo in one call: a push to edge node after Save Timeseries, a new edge, the sample
 * simulated gateways running with their devices assigned to the edge, and a simulated edge pulling.
 */
export function registerDemoRoutes(
  app: Api,
  { services, ruleChains, simulations, edgeSimulators }: DemoRouteDeps,
): void {
  app.post(
    '/api/sandboard/demo/edge-sync',
    {
      schema: {
        tags: ['Demo'],
        summary:
          'One click: push to edge after Save Timeseries, a demo edge, simulated gateways whose devices are assigned to it, and a simulated edge pulling its queue',
        response: { 200: EdgeSyncResult, ...authErrors },
      },
    },
    async (request) => {
      const actor = principalOf(request);
      requireTenantAdmin(actor);
      const pushToEdgeNodeAdded = await ensurePushToEdgeAfterSave(ruleChains, actor);

      const taken = new Set(services.edges.page({ pageSize: 1000, page: 0 }, actor).data.map((e) => e.name));
      let name = DEMO_EDGE;
      for (let n = 2; taken.has(name); n++) name = `${DEMO_EDGE} ${n}`;
      const edge = await services.edges.save({ name, type: 'demo' }, actor);

      const scenario = JSON.parse(readFileSync(SAMPLE_SCENARIO, 'utf8')) as Scenario;
      const existing = simulations.list().find((s) => s.name === scenario.name);
      const simulation = existing ?? (await simulations.create(scenario));
      const stopped = !['running', 'starting'].includes(simulations.get(simulation.id).state);
      if (stopped) await simulations.start(simulation.id);

      let assignedDevices = 0;
      for (const gateway of scenario.gateways) {
        for (const deviceName of deviceNames(gateway)) {
          const device = services.devices.findRowByName(deviceName);
          if (!device) continue;
          await services.edges.assign(edge.id.id, 'DEVICE', device.id, actor);
          assignedDevices++;
        }
      }
      const simulator = edgeSimulators.start({
        edgeId: edge.id.id,
        secret: edge.secret!,
        ratePerSec: 50,
        batchSize: 50,
      });
      return {
        edgeId: edge.id.id,
        edgeName: edge.name,
        simulationId: simulation.id,
        edgeSimulatorId: simulator.id,
        assignedDevices,
        pushToEdgeNodeAdded,
        simulationRestarted: stopped && existing !== undefined,
      };
    },
  );
}

import { IdParams } from '../../../shared/schemas/common.ts';
import {
  Scenario,
  SimulationDetails,
  SimulationReport,
  SimulationStatus,
  SimulationSummary,
  StartSimulationRequest,
} from '../../../shared/schemas/simulation.ts';
import { requireTenantAdmin } from '../../platform/auth/principal.ts';
import type { Services } from '../../platform/services.ts';
import { SimulationManager } from '../../simulator/simulation-manager.ts';
import { junitXml } from '../../../shared/simulation-junit.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, ownValidation, type Api } from '../route-types.ts';
import { registerRunnableResourceRoutes, runErrors } from './runnable-resource-routes.ts';

export interface SimulationRouteDeps {
  services: Services;
  /** the embedded broker's URL (mqtt://host:port), known once it listens */
  mqttUrl: () => string | undefined;
}

const BASE = '/api/sandboard/simulations';
const tags = ['Simulation'];

function attachmentName(name: string): string {
  return `${name.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || 'scenario'}.json`;
}

/** Gateway simulations (tenant administrators): saved scenarios, runs, live counters, export and import. */
export function registerSimulationRoutes(app: Api, deps: SimulationRouteDeps): SimulationManager {
  const manager = new SimulationManager(deps);
  app.addHook('onClose', async () => manager.close());
  const admin = (request: Parameters<typeof principalOf>[0]) => requireTenantAdmin(principalOf(request));

  registerRunnableResourceRoutes(app, manager, {
    base: BASE,
    tags,
    idParams: IdParams,
    summary: SimulationSummary,
    details: SimulationDetails,
    save: Scenario,
    parseSave: (body: unknown) => body, // the manager's validator names each bad JSON path
    start: StartSimulationRequest,
    parseStart: (body) => (body ?? null) as StartSimulationRequest,
    describe: {
      list: 'Saved simulations with their state and counters',
      create: 'Save a new simulation from a scenario (400 names the bad JSON path)',
      get: 'A simulation with its scenario',
      update: "Replace a simulation's scenario (409 while it runs)",
      delete: 'Stop and delete a simulation (its gateway devices and data stay)',
      start:
        'Start: connect every gateway and its devices, then publish (502 with the reason when a gateway cannot connect)',
      stop: 'Stop: disconnect the devices and the gateways (the counters of the run stay)',
    },
  });
  app.post(
    `${BASE}/import`,
    {
      ...ownValidation,
      schema: {
        tags,
        summary: 'Import an exported scenario file as a new simulation (a taken name gets " (2)")',
        body: Scenario,
        response: { 200: SimulationDetails, ...runErrors },
      },
    },
    async (request) => {
      admin(request);
      return manager.import(request.body);
    },
  );
  app.get(
    `${BASE}/:id/status`,
    {
      schema: {
        tags,
        summary:
          'Live status: counters, per-gateway state, msgs/s of the last 60 seconds, attribute-update and RPC logs',
        params: IdParams,
        response: { 200: SimulationStatus, ...authErrors },
      },
    },
    async (request) => {
      admin(request);
      return manager.status(request.params.id);
    },
  );
  app.get(
    `${BASE}/:id/export`,
    {
      schema: {
        tags,
        summary: 'The scenario as a JSON file (what `sandboard simulate` and import take)',
        params: IdParams,
        response: { 200: Scenario, ...authErrors },
      },
    },
    async (request, reply) => {
      admin(request);
      const scenario = manager.export(request.params.id);
      return reply
        .header('content-disposition', `attachment; filename="${attachmentName(scenario.name)}"`)
        .type('application/json; charset=utf-8')
        .send(JSON.stringify(scenario, null, 2) as unknown as Scenario); // pretty-printed for the file
    },
  );
  app.get(
    `${BASE}/:id/report`,
    {
      schema: {
        tags,
        summary:
          'Summary of the current or last run: sent, acknowledged, refused by reason, faults, alarms raised, RPC answered, PUBACK latency percentiles (404 before the first run)',
        params: IdParams,
        response: { 200: SimulationReport, ...authErrors },
      },
    },
    async (request) => {
      admin(request);
      return manager.report(request.params.id);
    },
  );
  app.get(
    `${BASE}/:id/report/junit`,
    {
      schema: {
        tags,
        summary:
          'The run summary as JUnit XML: the run ends well, publishes are acknowledged, RPC is answered, each fault was injected',
        params: IdParams,
        response: { 200: { type: 'string', description: 'JUnit XML' }, ...authErrors },
      },
    },
    async (request, reply) => {
      admin(request);
      const report = manager.report(request.params.id);
      return reply
        .header(
          'content-disposition',
          `attachment; filename="${attachmentName(report.name).replace(/\.json$/, '-report.xml')}"`,
        )
        .type('application/xml; charset=utf-8')
        .send(junitXml(report));
    },
  );
  return manager;
}

import { Type } from 'typebox';
import { ErrorResponse, IdParams } from '../../../shared/schemas/common.ts';
import {
  Scenario,
  SimulationDetails,
  SimulationStatus,
  SimulationSummary,
  StartSimulationRequest,
} from '../../../shared/schemas/simulation.ts';
import { requireTenantAdmin } from '../../platform/auth/principal.ts';
import type { Services } from '../../platform/services.ts';
import { SimulationManager } from '../../simulator/simulation-manager.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, ownValidation, type Api } from '../route-types.ts';

export interface SimulationRouteDeps {
  services: Services;
  /** the embedded broker's URL (mqtt://host:port), known once it listens */
  mqttUrl: () => string | undefined;
}

const BASE = '/api/sandboard/simulations';
const tags = ['Simulation'];
const errors = { ...authErrors, 409: ErrorResponse, 502: ErrorResponse, 503: ErrorResponse };
const IdParam = Type.Object({ id: Type.String({ description: 'simulation id' }) });

function attachmentName(name: string): string {
  return `${name.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || 'scenario'}.json`;
}

/** Gateway simulations (tenant administrators): saved scenarios, runs, live counters, export and import. */
export function registerSimulationRoutes(app: Api, deps: SimulationRouteDeps): SimulationManager {
  const manager = new SimulationManager(deps);
  app.addHook('onClose', async () => manager.close());
  const admin = (request: Parameters<typeof principalOf>[0]) => requireTenantAdmin(principalOf(request));

  app.get(
    BASE,
    {
      schema: {
        tags,
        summary: 'Saved simulations with their state and counters',
        response: { 200: Type.Array(SimulationSummary), ...authErrors },
      },
    },
    async (request) => {
      admin(request);
      return manager.list();
    },
  );
  app.post(
    BASE,
    {
      ...ownValidation,
      schema: {
        tags,
        summary: 'Save a new simulation from a scenario (400 names the bad JSON path)',
        body: Scenario,
        response: { 200: SimulationDetails, ...errors },
      },
    },
    async (request) => {
      admin(request);
      return manager.create(request.body);
    },
  );
  app.post(
    `${BASE}/import`,
    {
      ...ownValidation,
      schema: {
        tags,
        summary: 'Import an exported scenario file as a new simulation (a taken name gets " (2)")',
        body: Scenario,
        response: { 200: SimulationDetails, ...errors },
      },
    },
    async (request) => {
      admin(request);
      return manager.import(request.body);
    },
  );
  app.get(
    `${BASE}/:id`,
    {
      schema: {
        tags,
        summary: 'A simulation with its scenario',
        params: IdParams,
        response: { 200: SimulationDetails, ...authErrors },
      },
    },
    async (request) => {
      admin(request);
      return manager.get(request.params.id);
    },
  );
  app.put(
    `${BASE}/:id`,
    {
      ...ownValidation,
      schema: {
        tags,
        summary: "Replace a simulation's scenario (409 while it runs)",
        params: IdParam,
        body: Scenario,
        response: { 200: SimulationDetails, ...errors },
      },
    },
    async (request) => {
      admin(request);
      return manager.update(request.params.id, request.body);
    },
  );
  app.delete(
    `${BASE}/:id`,
    {
      schema: {
        tags,
        summary: 'Stop and delete a simulation (its gateway devices and data stay)',
        params: IdParams,
        response: emptyOk,
      },
    },
    async (request, reply) => {
      admin(request);
      await manager.delete(request.params.id);
      return reply.code(200).send(undefined);
    },
  );
  app.post(
    `${BASE}/:id/start`,
    {
      schema: {
        tags,
        summary:
          'Start: connect every gateway and its devices, then publish (502 with the reason when a gateway cannot connect)',
        params: IdParams,
        body: StartSimulationRequest,
        response: { 200: SimulationSummary, ...errors },
      },
    },
    async (request) => {
      admin(request);
      return manager.start(request.params.id, request.body);
    },
  );
  app.post(
    `${BASE}/:id/stop`,
    {
      schema: {
        tags,
        summary: 'Stop: disconnect the devices and the gateways (the counters of the run stay)',
        params: IdParams,
        body: Type.Union([Type.Object({}), Type.Null()], { description: 'no body, or {}' }),
        response: { 200: SimulationSummary, ...authErrors },
      },
    },
    async (request) => {
      admin(request);
      return manager.stop(request.params.id);
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
  return manager;
}

import type { AddressInfo } from 'node:net';
import { Type } from 'typebox';
import { ErrorResponse } from '../../../shared/schemas/common.ts';
import {
  CutOffEdgeRequest,
  EdgeReceiveFaults,
  EdgeSimulatorDetails,
  EdgeSimulatorSummary,
  SetEdgeSimulatorRateRequest,
  StartEdgeSimulatorRequest,
} from '../../../shared/schemas/edge-simulator.ts';
import { requireTenantAdmin } from '../../platform/auth/principal.ts';
import { EdgeSimulatorManager } from '../../simulator/edge-simulator-manager.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, type Api, type RouteDeps } from '../route-types.ts';

const BASE = '/api/sandboard/edgeSimulators';
const tags = ['Edge simulators'];
const errors = { ...authErrors, 409: ErrorResponse, 503: ErrorResponse };
const IdParam = Type.Object({ id: Type.String({ description: 'edge simulator id' }) });
const NoBody = Type.Union([Type.Object({}), Type.Null()], { description: 'no body, or {}' });

/** This server's own base URL, as the simulated edges reach it (a wildcard bind is reached on loopback). */
function ownUrl(app: Api): string | undefined {
  const address = app.server.address() as AddressInfo | string | null;
  if (!address || typeof address === 'string') return undefined;
  let host = address.address;
  if (host === '0.0.0.0') host = '127.0.0.1';
  else if (host === '::') host = '::1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

/**
 * Simulated edges (tenant administrators): each pulls an edge's queue from this platform over the real
 * HTTP edge API and acknowledges it, at a chosen rate; pausable; counters and the last events received.
 * They stop when the server closes.
 */
export function registerEdgeSimulatorRoutes(app: Api, { services }: RouteDeps): EdgeSimulatorManager {
  const manager = new EdgeSimulatorManager({ edges: services.edges, baseUrl: () => ownUrl(app) });
  // Before the server waits for open requests: a simulator's long poll is one of them.
  app.addHook('preClose', async () => manager.close());
  const admin = (request: Parameters<typeof principalOf>[0]) => requireTenantAdmin(principalOf(request));

  app.get(
    BASE,
    {
      schema: {
        tags,
        summary: 'Running edge simulators with their counters',
        response: { 200: Type.Array(EdgeSimulatorSummary), ...authErrors },
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
      schema: {
        tags,
        summary:
          "Start a simulated edge for an edge, with the edge's secret (400 if it does not match, 409 if the edge already has one)",
        body: StartEdgeSimulatorRequest,
        response: { 200: EdgeSimulatorDetails, ...errors },
      },
    },
    async (request) => {
      admin(request);
      return manager.start(request.body);
    },
  );
  app.get(
    `${BASE}/:id`,
    {
      schema: {
        tags,
        summary: 'A simulated edge: state, counters and the last events it received (with their bodies)',
        params: IdParam,
        response: { 200: EdgeSimulatorDetails, ...authErrors },
      },
    },
    async (request) => {
      admin(request);
      return manager.status(request.params.id);
    },
  );
  app.post(
    `${BASE}/:id/pause`,
    {
      schema: {
        tags,
        summary: 'Stop pulling (the queue grows); answers once no pull is in progress',
        params: IdParam,
        body: NoBody,
        response: { 200: EdgeSimulatorSummary, ...authErrors },
      },
    },
    async (request) => {
      admin(request);
      return manager.pause(request.params.id);
    },
  );
  app.post(
    `${BASE}/:id/resume`,
    {
      schema: {
        tags,
        summary: 'Pull again (the queue drains at the chosen rate)',
        params: IdParam,
        body: NoBody,
        response: { 200: EdgeSimulatorSummary, ...authErrors },
      },
    },
    async (request) => {
      admin(request);
      return manager.resume(request.params.id);
    },
  );
  app.post(
    `${BASE}/:id/rate`,
    {
      schema: {
        tags,
        summary: 'Change the rate (events/s, 0 = unlimited) and optionally the batch size',
        params: IdParam,
        body: SetEdgeSimulatorRateRequest,
        response: { 200: EdgeSimulatorSummary, ...authErrors },
      },
    },
    async (request) => {
      admin(request);
      return manager.setRate(request.params.id, request.body);
    },
  );
  app.post(
    `${BASE}/:id/cutOff`,
    {
      schema: {
        tags,
        summary:
          'Cut the edge off for durationMs (events queue up), then it reconnects by itself and checks that every event queued meanwhile arrives exactly once and in order: see cutOff.verdict',
        params: IdParam,
        body: CutOffEdgeRequest,
        response: { 200: EdgeSimulatorSummary, ...errors },
      },
    },
    async (request) => {
      admin(request);
      return manager.cutOff(request.params.id, request.body);
    },
  );
  app.post(
    `${BASE}/:id/faults`,
    {
      schema: {
        tags,
        summary:
          "Test hooks: faults on the edge's receiving side (lose, duplicate or swap a share of the events it pulls) so a cut-off verdict has something to name; {} clears them",
        params: IdParam,
        body: EdgeReceiveFaults,
        response: { 200: EdgeSimulatorSummary, ...authErrors },
      },
    },
    async (request) => {
      admin(request);
      return manager.setFaults(request.params.id, request.body);
    },
  );
  app.delete(
    `${BASE}/:id`,
    {
      schema: { tags, summary: 'Stop a simulated edge and forget it', params: IdParam, response: emptyOk },
    },
    async (request, reply) => {
      admin(request);
      await manager.stop(request.params.id);
      return reply.code(200).send(undefined);
    },
  );
  return manager;
}

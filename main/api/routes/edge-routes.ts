import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { PageNumber, PageSize } from '../../../shared/limits.ts';
import { ErrorResponse, PageData, PageQuery, Uuid } from '../../../shared/schemas/common.ts';
import {
  AckRequest,
  Edge,
  EdgeEvent,
  EdgeEventStatus,
  PullRequest,
  PullResponse,
  QueueCounts,
  SaveEdgeRequest,
} from '../../../shared/schemas/edge.ts';
import { Device, DeviceInfo, EntitySubtype } from '../../../shared/schemas/entities.ts';
import type { EdgeRow } from '../../platform/edges.ts';
import { unauthorized } from '../../platform/errors.ts';
import { principalOf } from '../authenticate.ts';
import { DeviceInfoQuery } from './device-routes.ts';
import { authErrors, emptyOk, type Api, type RouteDeps } from '../route-types.ts';

const edgeAuthErrors = { 400: ErrorResponse, 401: ErrorResponse };

export function registerEdgeRoutes(app: Api, { services, edgeQueue }: RouteDeps): void {
  const tags = ['Edges'];
  const { edges } = services;
  const IdParams = Type.Object({ id: Uuid });

  /** An edge authenticates with Basic routingKey:secret (or X-Edge-Routing-Key / X-Edge-Secret headers). */
  function edgeOf(request: FastifyRequest): EdgeRow {
    const basic = /^Basic (.+)$/i.exec(request.headers.authorization ?? '');
    if (basic) {
      const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0) return edges.authenticate(decoded.slice(0, colon), decoded.slice(colon + 1));
    }
    const key = request.headers['x-edge-routing-key'];
    const secret = request.headers['x-edge-secret'];
    if (typeof key === 'string' && typeof secret === 'string') return edges.authenticate(key, secret);
    throw unauthorized('Edge credentials missing: send "Authorization: Basic base64(routingKey:secret)"');
  }

  app.post(
    '/api/edge',
    {
      schema: {
        tags,
        summary:
          'Create or update an edge; a new edge gets a generated routing key and secret (the secret is shown once)',
        body: SaveEdgeRequest,
        response: { 200: Edge, ...authErrors },
      },
    },
    async (request) => edges.save(request.body, principalOf(request)),
  );
  app.get(
    '/api/edge/:id',
    { schema: { tags, summary: 'An edge', params: IdParams, response: { 200: Edge, ...authErrors } } },
    async (request) => edges.toEdge(edges.accessibleRow(request.params.id, principalOf(request))),
  );
  app.delete(
    '/api/edge/:id',
    {
      schema: {
        tags,
        summary: 'Delete an edge with its queue and assignments',
        params: IdParams,
        response: emptyOk,
      },
    },
    async (request, reply) => {
      await edges.delete(request.params.id, principalOf(request));
      return reply.code(200).send(undefined);
    },
  );
  app.get(
    '/api/tenant/edges',
    {
      schema: {
        tags,
        summary: 'Edges, a page at a time',
        querystring: PageQuery(['createdTime', 'name', 'type', 'label']),
        response: { 200: PageData(Edge), ...authErrors },
      },
    },
    async (request) => edges.page(request.query, principalOf(request)),
  );
  for (const method of ['post', 'delete'] as const) {
    app[method](
      '/api/edge/:edgeId/device/:deviceId',
      {
        schema: {
          tags,
          summary: method === 'post' ? 'Assign a device to an edge' : 'Unassign a device from an edge',
          params: Type.Object({ edgeId: Uuid, deviceId: Uuid }),
          response: { 200: Device, ...authErrors },
        },
      },
      async (request) => {
        const p = principalOf(request);
        if (method === 'post')
          await edges.assign(request.params.edgeId, 'DEVICE', request.params.deviceId, p);
        else await edges.unassign(request.params.edgeId, 'DEVICE', request.params.deviceId, p);
        return services.devices.get(request.params.deviceId, p);
      },
    );
  }
  app.get(
    '/api/edge/types',
    {
      schema: {
        tags,
        summary: 'The edge types in use',
        response: { 200: Type.Array(EntitySubtype), ...authErrors },
      },
    },
    async (request) => {
      principalOf(request);
      return edges.types();
    },
  );
  app.get(
    '/api/edge/:edgeId/devices',
    {
      schema: {
        tags,
        summary: 'Devices assigned to an edge',
        params: Type.Object({ edgeId: Uuid }),
        querystring: Type.Intersect([
          DeviceInfoQuery,
          Type.Object({
            startTime: Type.Optional(Type.Integer({ description: 'created at or after, epoch ms' })),
            endTime: Type.Optional(Type.Integer({ description: 'created at or before, epoch ms' })),
          }),
        ]),
        response: { 200: PageData(DeviceInfo), ...authErrors },
      },
    },
    async (request) => {
      edges.accessibleRow(request.params.edgeId, principalOf(request));
      return services.deviceQueries.infoPage(request.query, {
        ...request.query,
        edgeId: request.params.edgeId,
      });
    },
  );
  app.post(
    '/api/customer/:customerId/edge/:edgeId',
    {
      schema: {
        tags,
        summary: "Assign an edge to a customer (the customer's messages then reach it)",
        params: Type.Object({ customerId: Uuid, edgeId: Uuid }),
        response: { 200: Edge, ...authErrors },
      },
    },
    async (request) =>
      edges.assignToCustomer(request.params.edgeId, request.params.customerId, principalOf(request)),
  );
  app.delete(
    '/api/customer/edge/:edgeId',
    {
      schema: {
        tags,
        summary: 'Unassign an edge from its customer',
        params: Type.Object({ edgeId: Uuid }),
        response: { 200: Edge, ...authErrors },
      },
    },
    async (request) => edges.assignToCustomer(request.params.edgeId, null, principalOf(request)),
  );
  app.get(
    '/api/edge/:edgeId/events',
    {
      schema: {
        tags,
        summary: "An edge's events, newest first unless sortOrder=ASC, with their status",
        params: Type.Object({ edgeId: Uuid }),
        querystring: Type.Object({
          pageSize: PageSize(),
          page: PageNumber(),
          startTime: Type.Optional(Type.Integer()),
          endTime: Type.Optional(Type.Integer()),
          status: Type.Optional(EdgeEventStatus),
          sortOrder: Type.Optional(Type.Union([Type.Literal('ASC'), Type.Literal('DESC')])),
        }),
        response: { 200: PageData(EdgeEvent), ...authErrors },
      },
    },
    async (request) => {
      edges.accessibleRow(request.params.edgeId, principalOf(request));
      return edgeQueue.page(request.params.edgeId, request.query);
    },
  );
  app.get(
    '/api/edge/:edgeId/queue',
    {
      schema: {
        tags,
        summary: "Counts of an edge's events by status",
        params: Type.Object({ edgeId: Uuid }),
        response: { 200: QueueCounts, ...authErrors },
      },
    },
    async (request) => {
      edges.accessibleRow(request.params.edgeId, principalOf(request));
      return edgeQueue.counts(request.params.edgeId);
    },
  );

  const edgeTags = ['Edge queue (for edges)'];
  app.post(
    '/api/edge/queue/pull',
    {
      config: { public: true },
      schema: {
        tags: edgeTags,
        summary:
          'For an edge: take the next pending events in seqId order (they become RETRIEVED); waitMs long-polls. Acknowledge them within ackTimeoutMs or they are sent again.',
        security: [{ EdgeBasic: [] }],
        body: PullRequest,
        response: { 200: PullResponse, ...edgeAuthErrors },
      },
    },
    async (request) => {
      const edge = edgeOf(request);
      const { events, lastEdgeSeq } = await edgeQueue.pullWithLast(
        edge.id,
        request.body.maxEvents ?? 500,
        request.body.waitMs ?? 0,
      );
      return { events, ackTimeoutMs: edgeQueue.ackTimeoutMs, lastEdgeSeq };
    },
  );
  app.post(
    '/api/edge/queue/ack',
    {
      config: { public: true },
      schema: {
        tags: edgeTags,
        summary:
          'For an edge: acknowledge retrieved events (they become DELIVERED); repeating an acknowledgement is harmless',
        security: [{ EdgeBasic: [] }],
        body: AckRequest,
        response: { 200: Type.Object({ acknowledged: Type.Integer() }), ...edgeAuthErrors },
      },
    },
    async (request) => {
      const edge = edgeOf(request);
      return { acknowledged: await edgeQueue.ack(edge.id, request.body) };
    },
  );
}

import { Type } from 'typebox';
import { TIMEOUT_STATUS_HEADER } from '../../../shared/http-headers.ts';
import { ErrorResponse, PageData, PageQuery, Uuid } from '../../../shared/schemas/common.ts';
import { Device } from '../../../shared/schemas/entities.ts';
import { PersistentRpc, RpcRequestBody, RpcStatus } from '../../../shared/schemas/rpc.ts';
import { ErrorCode, PlatformError } from '../../platform/errors.ts';
import { RpcTimeoutError } from '../../platform/rpc.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, type Api, type RouteDeps } from '../route-types.ts';

const RpcHeaders = Type.Object({
  [TIMEOUT_STATUS_HEADER]: Type.Optional(
    Type.Union([Type.Literal('408'), Type.Literal('504')], {
      description:
        "Sandboard only: the status of a timeout, instead of ThingsBoard's (a browser sends a request again " +
        'when it gets 408 on a reused connection, which would send the device a second command: ask 504)',
    }),
  ),
});

const ClaimResult = Type.Object({ device: Device, response: Type.Literal('SUCCESS') });

/**
 * ThingsBoard's answers when no answer comes: RPC v2 answers 504 for both, RPC v1 408 when the device took
 * the request and did not answer, 409 when no session took it.
 */
const TIMEOUT_STATUS = {
  v1: { TIMEOUT: 408, NO_ACTIVE_CONNECTION: 409 },
  v2: { TIMEOUT: 504, NO_ACTIVE_CONNECTION: 504 },
} as const;

export function registerRpcAndClaimRoutes(app: Api, { services }: RouteDeps): void {
  const tags = ['RPC'];
  const routes = [
    { version: 'v2', base: '/api/rpc' },
    { version: 'v1', base: '/api/plugins/rpc' },
  ] as const;
  for (const { version, base } of routes) {
    for (const kind of ['oneway', 'twoway'] as const) {
      const statuses = TIMEOUT_STATUS[version];
      app.post(
        `${base}/${kind}/:deviceId`,
        {
          schema: {
            tags,
            summary:
              (kind === 'twoway'
                ? `Send an RPC to a device and wait for its answer (${statuses.TIMEOUT} when none comes in time)`
                : `Send an RPC to a device without waiting for an answer (${statuses.NO_ACTIVE_CONNECTION} when no session takes it in time)`) +
              '; persistent: true stores it and answers {"rpcId"} at once' +
              (version === 'v1' ? " (ThingsBoard's RPC v1 path)" : ''),
            params: Type.Object({ deviceId: Uuid }),
            headers: RpcHeaders,
            body: RpcRequestBody,
            response: {
              200: Type.Unknown(),
              [statuses.TIMEOUT]: ErrorResponse,
              [statuses.NO_ACTIVE_CONNECTION]: ErrorResponse,
              504: ErrorResponse,
              408: ErrorResponse,
              ...authErrors,
            },
          },
        },
        async (request, reply) => {
          const device = services.devices.accessibleRow(request.params.deviceId, principalOf(request));
          try {
            const result = await services.rpc.call(device, request.body, kind === 'oneway');
            if (request.body.persistent) return reply.code(200).send(result);
            return kind === 'oneway' ? reply.code(200).send(undefined) : reply.code(200).send(result ?? null);
          } catch (err) {
            if (err instanceof RpcTimeoutError) {
              const asked = request.headers[TIMEOUT_STATUS_HEADER];
              const status = asked ? Number(asked) : statuses[err.reason];
              throw new PlatformError(status, ErrorCode.GENERAL, err.message);
            }
            throw err;
          }
        },
      );
    }
  }

  const RpcIdParams = Type.Object({ rpcId: Uuid });
  app.get(
    '/api/rpc/persistent/:rpcId',
    {
      schema: {
        tags,
        summary: 'A persistent RPC request with its status and the answer',
        params: RpcIdParams,
        response: { 200: PersistentRpc, ...authErrors },
      },
    },
    async (request) => services.rpc.get(request.params.rpcId, principalOf(request)),
  );
  app.delete(
    '/api/rpc/persistent/:rpcId',
    {
      schema: {
        tags,
        summary: 'Delete a persistent RPC request; one not delivered yet is not sent',
        params: RpcIdParams,
        response: emptyOk,
      },
    },
    async (request, reply) => {
      await services.rpc.delete(request.params.rpcId, principalOf(request));
      return reply.code(200).send(undefined);
    },
  );
  app.get(
    '/api/rpc/persistent/device/:deviceId',
    {
      schema: {
        tags,
        summary: "A device's persistent RPC requests, a page at a time (rpcStatus filters by status)",
        params: Type.Object({ deviceId: Uuid }),
        querystring: Type.Object({
          ...PageQuery(['createdTime', 'expirationTime', 'request', 'response']).properties,
          rpcStatus: Type.Optional(RpcStatus),
        }),
        response: { 200: PageData(PersistentRpc), ...authErrors },
      },
    },
    async (request) => {
      const { rpcStatus, ...page } = request.query;
      return services.rpc.page(request.params.deviceId, page, rpcStatus, principalOf(request));
    },
  );

  const claimTags = ['Claiming'];
  app.post(
    '/api/customer/device/:deviceName/claim',
    {
      schema: {
        tags: claimTags,
        summary: 'Claim a device as a customer user with the secret key it announced',
        params: Type.Object({ deviceName: Type.String({ minLength: 1 }) }),
        body: Type.Object({ secretKey: Type.Optional(Type.String()) }),
        response: {
          ...authErrors,
          200: ClaimResult,
          400: Type.Union([Type.Literal('FAILURE'), Type.Literal('CLAIMED'), ErrorResponse]),
        },
      },
    },
    async (request, reply) => {
      const outcome = await services.claims.claim(
        request.params.deviceName,
        request.body.secretKey ?? '',
        principalOf(request),
      );
      if (outcome.response === 'SUCCESS') return reply.code(200).send(outcome);
      // ThingsBoard answers the bare JSON string "FAILURE" or "CLAIMED".
      return reply
        .code(400)
        .type('application/json')
        .send(JSON.stringify(outcome.response) as 'FAILURE');
    },
  );
  app.delete(
    '/api/customer/device/:deviceName/claim',
    {
      schema: {
        tags: claimTags,
        summary: 'Give a claimed device back (reclaim)',
        params: Type.Object({ deviceName: Type.String({ minLength: 1 }) }),
        response: { 200: Device, ...authErrors },
      },
    },
    async (request) => services.claims.reclaim(request.params.deviceName, principalOf(request)),
  );
}

import { Type } from 'typebox';
import { TIMEOUT_STATUS_HEADER } from '../../../shared/http-headers.ts';
import { ErrorResponse, Uuid } from '../../../shared/schemas/common.ts';
import { Device } from '../../../shared/schemas/entities.ts';
import { PlatformError } from '../../platform/errors.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, type Api, type RouteDeps } from '../route-types.ts';

const RpcBody = Type.Object({
  method: Type.String({ minLength: 1, maxLength: 255 }),
  params: Type.Optional(Type.Unknown()),
  timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 600_000, description: 'ms, default 10000' })),
  persistent: Type.Optional(
    Type.Boolean({ description: 'accepted for compatibility; requests are kept in memory' }),
  ),
});

const RpcHeaders = Type.Object({
  [TIMEOUT_STATUS_HEADER]: Type.Optional(
    Type.Union([Type.Literal('408'), Type.Literal('504')], {
      description:
        'Sandboard only: 504 answers a timeout with 504 instead of 408 (a browser sends a request again ' +
        'when it gets 408 on a reused connection, which would send the device a second command)',
    }),
  ),
});

const ClaimResult = Type.Object({ device: Device, response: Type.Literal('SUCCESS') });

export function registerRpcAndClaimRoutes(app: Api, { services }: RouteDeps): void {
  for (const kind of ['oneway', 'twoway'] as const) {
    app.post(
      `/api/rpc/${kind}/:deviceId`,
      {
        schema: {
          tags: ['RPC'],
          summary:
            kind === 'twoway'
              ? 'Send an RPC to a device and wait for its answer (408 when none comes in time)'
              : 'Send an RPC to a device without waiting for an answer (408 when no session takes it in time)',
          params: Type.Object({ deviceId: Uuid }),
          headers: RpcHeaders,
          body: RpcBody,
          response: { 200: Type.Unknown(), 408: ErrorResponse, 504: ErrorResponse, ...authErrors },
        },
      },
      async (request, reply) => {
        const device = services.devices.accessibleRow(request.params.deviceId, principalOf(request));
        const timeoutStatus = request.headers[TIMEOUT_STATUS_HEADER] === '504' ? 504 : 408;
        const result = await services.rpc.call(device, request.body, kind === 'oneway').catch((err) => {
          if (err instanceof PlatformError && err.status === 408 && timeoutStatus === 504)
            throw new PlatformError(504, err.errorCode, err.message, err.headers);
          throw err;
        });
        return kind === 'oneway' ? reply.code(200).send(undefined) : reply.code(200).send(result ?? null);
      },
    );
  }

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

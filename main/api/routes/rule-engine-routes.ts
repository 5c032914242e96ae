import { randomUUID } from 'node:crypto';
import { Type } from 'typebox';
import { ErrorResponse, Uuid } from '../../../shared/schemas/common.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import { badRequestParams, ErrorCode, PlatformError } from '../../platform/errors.ts';
import { newMsg, type Originator } from '../../platform/tb-msg.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, type Api, type RouteDeps } from '../route-types.ts';

/** server.rest.rule_engine.response_timeout */
const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_TIMEOUT_MS = 3_600_000;

const Timeout = Type.Integer({
  minimum: 0,
  maximum: MAX_TIMEOUT_MS,
  description: 'How long to wait for the rest call reply node, in milliseconds',
});
const QueueName = Type.String({ minLength: 1, maxLength: 255 });

const VARIANTS = [
  { path: '/api/rule-engine/', params: null, summary: 'the calling user as originator' },
  {
    path: '/api/rule-engine/:entityType/:entityId',
    params: Type.Object({ entityType: Type.String(), entityId: Uuid }),
    summary: 'an entity as originator',
  },
  {
    path: '/api/rule-engine/:entityType/:entityId/:timeout',
    params: Type.Object({ entityType: Type.String(), entityId: Uuid, timeout: Timeout }),
    summary: 'an entity as originator, with a timeout',
  },
  {
    path: '/api/rule-engine/:entityType/:entityId/:queueName/:timeout',
    params: Type.Object({
      entityType: Type.String(),
      entityId: Uuid,
      queueName: QueueName,
      timeout: Timeout,
    }),
    summary: "an entity as originator, in a queue instead of its profile's, with a timeout",
  },
] as const;

interface CallParams {
  entityType?: string;
  entityId?: string;
  timeout?: number;
  queueName?: string;
}

/** The request body as JSON: ThingsBoard's clients send it as application/json or as text/plain. */
function requestData(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw badRequestParams('Invalid request body');
  }
}

/**
 * ThingsBoard's RuleEngineController: the body goes into the rule engine as a REST_API_REQUEST message with
 * serviceId, requestUUID and expirationTime in its metadata, and the call answers with what the rest call
 * reply node sends back (408 when nothing comes in time: ThingsBoard's has no body, Sandboard's is its error JSON).
 */
export function registerRuleEngineRoutes(app: Api, { services, ruleChains }: RouteDeps): void {
  const originatorOf = (params: CallParams, actor: Principal): Originator => {
    if (!params.entityType || !params.entityId) return { entityType: 'USER', id: actor.userId };
    const entity = services.directory.require(
      { entityType: params.entityType, id: params.entityId },
      actor,
      'write',
    );
    return { entityType: params.entityType, id: entity.id };
  };
  for (const variant of VARIANTS) {
    app.post(
      variant.path,
      {
        schema: {
          tags: ['Rule Engine'],
          summary: `Push a REST_API_REQUEST message into the rule engine, ${variant.summary}; answered by the rest call reply node`,
          ...(variant.params ? { params: variant.params } : {}),
          body: Type.Unknown({ description: 'The message data: JSON (as application/json or text/plain)' }),
          response: {
            200: Type.Unknown(),
            408: ErrorResponse,
            ...authErrors,
          },
        },
      },
      async (request, reply) => {
        const params = (request.params ?? {}) as CallParams;
        const actor = principalOf(request);
        const data = requestData(request.body);
        const originator = originatorOf(params, actor);
        const timeout = params.timeout ?? DEFAULT_TIMEOUT_MS;
        const requestId = randomUUID();
        const calls = services.restApiCalls;
        const answer = calls.wait(requestId, timeout);
        const msg = newMsg('REST_API_REQUEST', originator, data, {
          serviceId: calls.serviceId,
          requestUUID: requestId,
          expirationTime: String(Date.now() + timeout),
        });
        if (params.queueName) msg.queueName = params.queueName;
        ruleChains.engine.submit(msg);
        const result = await answer;
        if (!result)
          throw new PlatformError(
            408,
            ErrorCode.GENERAL,
            `No reply from the rule engine within ${timeout} ms`,
          );
        if (result.data === undefined || result.data === '') return reply.code(200).send(undefined);
        return reply.code(200).type('application/json').send(JSON.stringify(result.data));
      },
    );
  }
}

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import { Type } from 'typebox';
import { ErrorResponse } from '../../shared/schemas/common.ts';
import type { EdgeQueue } from '../edge/edge-queue.ts';
import { badRequestParams } from '../platform/errors.ts';
import type { Services } from '../platform/services.ts';
import type { RuleChainService } from '../rule-engine/rule-chain-service.ts';

export type Api = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** What the platform's routes reach: the domain services, the rule chains and their engine, the edge queue. */
export interface RouteDeps {
  services: Services;
  ruleChains: RuleChainService;
  edgeQueue: EdgeQueue;
}

/** The error answers every authenticated route may give, for the OpenAPI document. */
export const authErrors = {
  400: ErrorResponse,
  401: ErrorResponse,
  403: ErrorResponse,
  404: ErrorResponse,
};

/** 200 with an empty body, as ThingsBoard answers deletes and attribute writes. */
export const emptyOk = { 200: Type.Unknown({ description: 'OK, empty body' }), ...authErrors };

/**
 * For bodies checked by their own validator, whose errors name each JSON path (rest.json, simulation
 * scenarios: `gateways[0].keys[2].generator.min: must be a number`); the schema still documents them.
 */
export const ownValidation = { validatorCompiler: () => () => true };

/**
 * pageSize and page of a route that also answers without paging (by ids, by name): required there as
 * Spring requires `@RequestParam int` parameters.
 */
export function requirePage(q: { pageSize?: number; page?: number }): { pageSize: number; page: number } {
  for (const name of ['pageSize', 'page'] as const)
    if (q[name] === undefined)
      throw badRequestParams(
        `Required request parameter '${name}' for method parameter type int is not present`,
      );
  return { pageSize: q.pageSize!, page: q.page! };
}

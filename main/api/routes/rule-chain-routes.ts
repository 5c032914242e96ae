import { Type } from 'typebox';
import { PageData, PageQuery, Uuid } from '../../../shared/schemas/common.ts';
import { RuleChain, RuleChainMetadata } from '../../../shared/rule-engine.ts';
import { requireTenantAdmin } from '../../platform/auth/principal.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, type Api, type RouteDeps } from '../route-types.ts';

const DebugEvent = Type.Object({
  ts: Type.Integer(),
  direction: Type.Union([Type.Literal('IN'), Type.Literal('OUT')]),
  relation: Type.Union([Type.String(), Type.Null()]),
  msgType: Type.String(),
  originator: Type.String(),
  data: Type.Unknown(),
  metadata: Type.Record(Type.String(), Type.String()),
  error: Type.Union([Type.String(), Type.Null()]),
});

const NodeDefinitionJson = Type.Object({
  type: Type.String(),
  label: Type.String(),
  relations: Type.Array(Type.String()),
  defaultConfiguration: Type.Record(Type.String(), Type.Unknown()),
});

export function registerRuleChainRoutes(app: Api, { ruleChains: chains }: RouteDeps): void {
  const tags = ['Rule chains'];
  app.get(
    '/api/ruleChains',
    {
      schema: {
        tags,
        summary: 'Rule chains, a page at a time',
        querystring: PageQuery(['createdTime', 'name', 'root']),
        response: { 200: PageData(RuleChain), ...authErrors },
      },
    },
    async (request) => chains.page(request.query, principalOf(request)),
  );
  app.get(
    '/api/ruleChain/:id',
    {
      schema: {
        tags,
        summary: 'A rule chain',
        params: Type.Object({ id: Uuid }),
        response: { 200: RuleChain, ...authErrors },
      },
    },
    async (request) => chains.get(request.params.id, principalOf(request)),
  );
  app.get(
    '/api/ruleChain/:id/metadata',
    {
      schema: {
        tags,
        summary: "A rule chain's nodes and connections",
        params: Type.Object({ id: Uuid }),
        response: { 200: RuleChainMetadata, ...authErrors },
      },
    },
    async (request) => chains.metadata(request.params.id, principalOf(request)),
  );
  for (const path of ['/api/ruleChain/metadata', '/api/ruleChain/:id/metadata'] as const) {
    app.post(
      path,
      {
        schema: {
          tags,
          summary:
            "Save a rule chain's nodes and connections; every node configuration is validated (400 names the field)",
          params: path.includes(':id') ? Type.Object({ id: Uuid }) : Type.Object({}),
          body: RuleChainMetadata,
          response: { 200: RuleChainMetadata, ...authErrors },
        },
      },
      async (request) =>
        chains.saveMetadata((request.params as { id?: string }).id, request.body, principalOf(request)),
    );
  }
  app.get(
    '/api/ruleNode/:id/debugEvents',
    {
      schema: {
        tags,
        summary: 'The last messages in and out of a node whose debug mode is on, with the relation taken',
        params: Type.Object({ id: Type.String() }),
        response: { 200: Type.Array(DebugEvent), ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return chains.engine.debugEvents(request.params.id);
    },
  );
  app.get(
    '/api/ruleNode/types',
    {
      schema: {
        tags,
        summary: 'The node types Sandboard runs, with their relations and default configuration',
        response: { 200: Type.Array(NodeDefinitionJson), ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return chains.nodeDefinitions().map(({ type, label, relations, defaultConfiguration }) => ({
        type,
        label,
        relations,
        defaultConfiguration,
      }));
    },
  );
}

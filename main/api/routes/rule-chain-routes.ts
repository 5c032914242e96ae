import { Type } from 'typebox';
import { OptionalPageQuery, PageData, PageQuery, Uuid } from '../../../shared/schemas/common.ts';
import {
  MessageTraceEvent,
  RuleChain,
  RuleChainData,
  RuleChainFile,
  RuleChainImportResult,
  RuleChainMetadata,
  RuleChainOutputLabelsUsage,
  RuleChainType,
  SaveRuleChainRequest,
} from '../../../shared/rule-engine.ts';
import { requireTenantAdmin } from '../../platform/auth/principal.ts';
import {
  exportChainFile,
  exportChains,
  importChainFile,
  importChains,
} from '../../rule-engine/rule-chain-transfer.ts';
import { docUrlOf } from '../../rule-engine/component-descriptors.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, requirePage, type Api, type RouteDeps } from '../route-types.ts';

const DebugEvent = Type.Object({
  ts: Type.Integer(),
  direction: Type.Union([Type.Literal('IN'), Type.Literal('OUT')]),
  relation: Type.Union([Type.String(), Type.Null()]),
  msgId: Type.String(),
  traceId: Type.String(),
  msgType: Type.String(),
  originator: Type.String(),
  data: Type.Unknown(),
  metadata: Type.Record(Type.String(), Type.String()),
  error: Type.Union([Type.String(), Type.Null()]),
});

const NodeDefinitionJson = Type.Object({
  type: Type.String(),
  label: Type.String(),
  componentType: Type.String(),
  description: Type.String(),
  details: Type.String(),
  docUrl: Type.String({ description: "ThingsBoard's documentation page of the node ('' when none)" }),
  relations: Type.Array(Type.String()),
  customRelations: Type.Boolean(),
  ruleChainNode: Type.Boolean(),
  ruleChainTypes: Type.Array(Type.String()),
  defaultConfiguration: Type.Record(Type.String(), Type.Unknown()),
});

const NodeStatus = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  running: Type.Boolean(),
  problem: Type.Union([Type.String(), Type.Null()]),
});

const ChainIdParams = Type.Object({ ruleChainId: Uuid });
const parseJsonText = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

export function registerRuleChainRoutes(app: Api, { ruleChains: chains }: RouteDeps): void {
  const tags = ['Rule chains'];
  app.get(
    '/api/ruleChains',
    {
      schema: {
        tags,
        summary:
          'Rule chains of a type (CORE unless given), a page at a time, or by ruleChainIds (repeated or comma-separated)',
        querystring: Type.Object({
          ...OptionalPageQuery(['createdTime', 'name', 'root']).properties,
          type: Type.Optional(RuleChainType),
          ruleChainIds: Type.Optional(Type.Array(Uuid, { minItems: 1, maxItems: 1000 })),
        }),
        response: { 200: Type.Union([PageData(RuleChain), Type.Array(RuleChain)]), ...authErrors },
      },
    },
    async (request) => {
      const q = request.query;
      if (q.ruleChainIds) return chains.byIds(q.ruleChainIds, principalOf(request));
      return chains.page({ ...q, ...requirePage(q) }, q.type, principalOf(request));
    },
  );
  app.get(
    '/api/ruleChain/:ruleChainId',
    {
      schema: {
        tags,
        summary: 'A rule chain',
        params: ChainIdParams,
        response: { 200: RuleChain, ...authErrors },
      },
    },
    async (request) => chains.get(request.params.ruleChainId, principalOf(request)),
  );
  app.post(
    '/api/ruleChain',
    {
      schema: {
        tags,
        summary: 'Create a rule chain (no id) or rename / change one; its nodes are saved through /metadata',
        body: SaveRuleChainRequest,
        response: { 200: RuleChain, ...authErrors },
      },
    },
    async (request) => chains.save(request.body, principalOf(request)),
  );
  app.delete(
    '/api/ruleChain/:ruleChainId',
    {
      schema: {
        tags,
        summary: 'Delete a rule chain (not the root, not one a device profile names)',
        params: ChainIdParams,
        response: emptyOk,
      },
    },
    async (request, reply) => {
      await chains.delete(request.params.ruleChainId, principalOf(request));
      return reply.code(200).send(undefined);
    },
  );
  app.post(
    '/api/ruleChain/:ruleChainId/root',
    {
      schema: {
        tags,
        summary: 'Make a CORE chain the root chain: messages without a device profile chain start there',
        params: ChainIdParams,
        response: { 200: RuleChain, ...authErrors },
      },
    },
    async (request) => chains.setRoot(request.params.ruleChainId, principalOf(request)),
  );
  app.post(
    '/api/ruleChain/device/default',
    {
      schema: {
        tags,
        summary: "A new chain like ThingsBoard's device profile rule chain template",
        body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 255 }) }),
        response: { 200: RuleChain, ...authErrors },
      },
    },
    async (request) => chains.createDeviceDefault(request.body.name, principalOf(request)),
  );
  app.get(
    '/api/ruleChain/:ruleChainId/metadata',
    {
      schema: {
        tags,
        summary: "A rule chain's nodes and connections",
        params: ChainIdParams,
        response: { 200: RuleChainMetadata, ...authErrors },
      },
    },
    async (request) => chains.metadata(request.params.ruleChainId, principalOf(request)),
  );
  for (const path of ['/api/ruleChain/metadata', '/api/ruleChain/:ruleChainId/metadata'] as const) {
    app.post(
      path,
      {
        schema: {
          tags,
          summary:
            "Save a rule chain's nodes and connections; every known node's configuration is checked (400 names the field); nodes of unknown classes are kept and fail their messages",
          params: path.includes(':ruleChainId') ? ChainIdParams : Type.Object({}),
          querystring: Type.Object({ updateRelated: Type.Optional(Type.Boolean()) }),
          body: RuleChainMetadata,
          response: { 200: RuleChainMetadata, ...authErrors },
        },
      },
      async (request) =>
        chains.saveMetadata(
          (request.params as { ruleChainId?: string }).ruleChainId,
          request.body,
          principalOf(request),
        ),
    );
  }
  app.get(
    '/api/ruleChain/:ruleChainId/output/labels',
    {
      schema: {
        tags,
        summary: "The names of a chain's output nodes (the relations of a rule chain node calling it)",
        params: ChainIdParams,
        response: { 200: Type.Array(Type.String()), ...authErrors },
      },
    },
    async (request) => chains.outputLabels(request.params.ruleChainId, principalOf(request)),
  );
  app.get(
    '/api/ruleChain/:ruleChainId/output/labels/usage',
    {
      schema: {
        tags,
        summary: 'The rule chain nodes that call this chain and the output labels they go on with',
        params: ChainIdParams,
        response: { 200: Type.Array(RuleChainOutputLabelsUsage), ...authErrors },
      },
    },
    async (request) => chains.outputLabelsUsage(request.params.ruleChainId, principalOf(request)),
  );
  app.get(
    '/api/ruleChains/export',
    {
      schema: {
        tags,
        summary: "Up to `limit` chains with their metadata (ThingsBoard's RuleChainData)",
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 1000 }) }),
        response: { 200: RuleChainData, ...authErrors },
      },
    },
    async (request) => exportChains(chains, request.query.limit, principalOf(request)),
  );
  app.post(
    '/api/ruleChains/import',
    {
      bodyLimit: 16 * 1024 * 1024,
      schema: {
        tags,
        summary:
          'Import chains (RuleChainData); with overwrite=true a chain of the same name and type is replaced',
        querystring: Type.Object({ overwrite: Type.Optional(Type.Boolean()) }),
        body: RuleChainData,
        response: { 200: Type.Array(RuleChainImportResult), ...authErrors },
      },
    },
    async (request) =>
      importChains(chains, request.body, request.query.overwrite === true, principalOf(request)),
  );
  app.get(
    '/api/sandboard/ruleChain/:ruleChainId/export',
    {
      schema: {
        tags,
        summary: 'One chain as the file ThingsBoard\'s UI exports: {"ruleChain": {...}, "metadata": {...}}',
        params: ChainIdParams,
        response: { 200: RuleChainFile, ...authErrors },
      },
    },
    async (request) => exportChainFile(chains, request.params.ruleChainId, principalOf(request)),
  );
  app.post(
    '/api/sandboard/ruleChain/import',
    {
      bodyLimit: 16 * 1024 * 1024,
      schema: {
        tags,
        summary:
          "Import one file as ThingsBoard's UI exports it, as a new chain; nodes Sandboard does not run are kept as unsupported",
        body: RuleChainFile,
        response: { 200: Type.Object({ ruleChain: RuleChain, metadata: RuleChainMetadata }), ...authErrors },
      },
    },
    async (request) => importChainFile(chains, request.body, principalOf(request)),
  );
  // Edges
  app.post(
    '/api/ruleChain/:ruleChainId/edgeTemplateRoot',
    {
      schema: {
        tags,
        summary: 'Make an EDGE chain the template root every new edge gets',
        params: ChainIdParams,
        response: { 200: RuleChain, ...authErrors },
      },
    },
    async (request) => chains.setEdgeTemplateRoot(request.params.ruleChainId, principalOf(request)),
  );
  for (const method of ['POST', 'DELETE'] as const) {
    app.route({
      method,
      url: '/api/ruleChain/:ruleChainId/autoAssignToEdge',
      schema: {
        tags,
        summary:
          method === 'POST'
            ? 'Assign this EDGE chain to every edge created from now on'
            : 'Stop assigning this chain to new edges',
        params: ChainIdParams,
        response: { 200: RuleChain, ...authErrors },
      },
      handler: async (request) =>
        chains.setAutoAssignToEdge(request.params.ruleChainId, method === 'POST', principalOf(request)),
    });
    app.route({
      method,
      url: '/api/edge/:edgeId/ruleChain/:ruleChainId',
      schema: {
        tags,
        summary:
          method === 'POST' ? 'Assign an EDGE rule chain to an edge' : 'Unassign a rule chain from an edge',
        params: Type.Object({ edgeId: Uuid, ruleChainId: Uuid }),
        response: { 200: RuleChain, ...authErrors },
      },
      handler: async (request) =>
        chains.assignToEdge(
          request.params.ruleChainId,
          request.params.edgeId,
          method === 'POST',
          principalOf(request),
        ),
    });
  }
  app.get(
    '/api/ruleChain/autoAssignToEdgeRuleChains',
    {
      schema: {
        tags,
        summary: 'The chains assigned to every new edge',
        response: { 200: Type.Array(RuleChain), ...authErrors },
      },
    },
    async (request) => chains.autoAssignChains(principalOf(request)),
  );
  app.get(
    '/api/edge/:edgeId/ruleChains',
    {
      schema: {
        tags,
        summary: 'The rule chains assigned to an edge',
        params: Type.Object({ edgeId: Uuid }),
        querystring: PageQuery(['createdTime', 'name', 'root']),
        response: { 200: PageData(RuleChain), ...authErrors },
      },
    },
    async (request) => chains.edgeChains(request.params.edgeId, request.query, principalOf(request)),
  );
  // Nodes
  app.get(
    '/api/ruleNode/:ruleNodeId/debugIn',
    {
      schema: {
        tags,
        summary:
          'The latest message that came into a node in debug mode ({msg, metadata, msgType}), or nothing',
        params: Type.Object({ ruleNodeId: Uuid }),
        response: { 200: Type.Unknown(), ...authErrors },
      },
    },
    async (request, reply) => {
      requireTenantAdmin(principalOf(request));
      const last = chains.engine.debugLog
        .events(request.params.ruleNodeId)
        .filter((e) => e.direction === 'IN')
        .at(-1);
      if (!last) return reply.code(200).send(undefined);
      return {
        type: 'IN',
        msgType: last.msgType,
        data: last.data,
        metadata: last.metadata,
        entityId: last.originator.id,
        entityType: last.originator.entityType,
        msgId: last.msgId,
      };
    },
  );
  app.get(
    '/api/ruleNode/:id/debugEvents',
    {
      schema: {
        tags,
        summary:
          'The last messages in and out of a node in debug mode, with the relation taken (oldest first)',
        params: Type.Object({ id: Type.String() }),
        response: { 200: Type.Array(DebugEvent), ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return chains.engine.debugLog.events(request.params.id).map((e) => ({
        ts: e.ts,
        direction: e.direction,
        // This endpoint's events name the relation taken out of the node only.
        relation: e.direction === 'IN' ? null : e.relation,
        msgId: e.msgId,
        traceId: e.traceId,
        msgType: e.msgType,
        originator: `${e.originator.entityType} ${e.originator.id}`,
        data: parseJsonText(e.data),
        metadata: parseJsonText(e.metadata) as Record<string, string>,
        error: e.error,
      }));
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
      return chains.nodeDefinitions().map((d) => ({
        type: d.type,
        label: d.label,
        componentType: d.componentType ?? 'ACTION',
        description: d.description ?? '',
        details: d.details ?? '',
        docUrl: docUrlOf(d),
        relations: d.relations,
        customRelations: d.customRelations === true,
        ruleChainNode: d.ruleChainNode === true,
        ruleChainTypes: d.ruleChainTypes ?? ['CORE', 'EDGE'],
        defaultConfiguration: d.defaultConfiguration,
      }));
    },
  );
  app.get(
    '/api/sandboard/ruleChain/:ruleChainId/nodeStatus',
    {
      schema: {
        tags,
        summary:
          "Whether each node of a CORE chain runs, and why not (unknown class, configuration it can't start with)",
        params: ChainIdParams,
        response: { 200: Type.Array(NodeStatus), ...authErrors },
      },
    },
    async (request) => {
      const md = chains.metadata(request.params.ruleChainId, principalOf(request));
      return md.nodes.map((n) => {
        const compiled = chains.engine.node(n.id.id);
        const problem = compiled
          ? chains.engine.nodeProblem(compiled)
          : chains.nodeDefinitions().some((d) => d.type === n.type)
            ? null
            : `Rule node type '${n.type}' is not supported by Sandboard`;
        return { id: n.id.id, name: n.name, type: n.type, running: !!compiled && !problem, problem };
      });
    },
  );
  app.get(
    '/api/sandboard/ruleEngine/trace/:traceId',
    {
      schema: {
        tags,
        summary:
          'Every debug event of one message and the messages made from it (splits, delays), across nodes and chains, by time',
        params: Type.Object({ traceId: Type.String({ pattern: '^[\\w-]{1,64}$' }) }),
        response: { 200: Type.Array(MessageTraceEvent), ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return chains.engine.debugLog.trace(request.params.traceId);
    },
  );
}

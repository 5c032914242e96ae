import { randomUUID } from 'node:crypto';
import type { PageData, PageQuery } from '../../shared/schemas/common.ts';
import type { RuleChain, RuleChainMetadata } from '../../shared/rule-engine.ts';
import { requireTenantAdmin, type Principal } from '../platform/auth/principal.ts';
import { ref, type PlatformContext } from '../platform/context.ts';
import { invalidArgument, notFound } from '../platform/errors.ts';
import { parseJson, queryPage } from '../platform/paging.ts';
import type { Row } from '../store/durable-db.ts';
import type { NodeDefinition, RuleEnv } from './rule-node.ts';
import { RuleEngine } from './rule-engine.ts';

interface RuleChainRow {
  id: string;
  created_time: number;
  name: string;
  type: string;
  root: number;
  debug_mode: number;
  configuration: string | null;
  additional_info: string | null;
  metadata: string;
}

type StoredMetadata = RuleChainMetadata & {
  nodes: (RuleChainMetadata['nodes'][number] & { id?: { id: string } })[];
};

/** Rule chains as ThingsBoard stores them (metadata: nodes + connections) and the engine running the root one. */
export class RuleChainService {
  private readonly ctx: PlatformContext;
  private readonly registry: Map<string, NodeDefinition>;
  private engineInstance: RuleEngine | null = null;

  constructor(ctx: PlatformContext, registry: Map<string, NodeDefinition>) {
    this.ctx = ctx;
    this.registry = registry;
  }

  /** Builds the engine over the root chain; needs the finished services (nodes use them). */
  start(env: RuleEnv): RuleEngine {
    const engine = new RuleEngine(this.registry, env);
    const root = this.rootRow();
    if (root) engine.load(JSON.parse(root.metadata) as StoredMetadata);
    this.engineInstance = engine;
    return engine;
  }

  get engine(): RuleEngine {
    if (!this.engineInstance) throw new Error('The rule engine is not started');
    return this.engineInstance;
  }

  nodeDefinitions(): NodeDefinition[] {
    return [...this.registry.values()];
  }

  page(q: PageQuery, actor: Principal): PageData<RuleChain> {
    requireTenantAdmin(actor);
    return queryPage(
      this.ctx.db,
      {
        from: 'FROM rule_chains e',
        where: [],
        params: [],
        searchColumn: 'e.name',
        sortColumns: { createdTime: 'e.created_time', name: 'e.name', root: 'e.root' },
        defaultSort: 'createdTime',
      },
      q,
      (r: Row) => this.toRuleChain(r as unknown as RuleChainRow),
    );
  }

  get(id: string, actor: Principal): RuleChain {
    requireTenantAdmin(actor);
    return this.toRuleChain(this.row(id));
  }

  metadata(id: string, actor: Principal): StoredMetadata {
    requireTenantAdmin(actor);
    const row = this.row(id);
    return { ...(JSON.parse(row.metadata) as StoredMetadata), ruleChainId: ref('RULE_CHAIN', row.id) };
  }

  /** Validates every node's configuration (400 naming the field), stores, and reloads the engine if root. */
  async saveMetadata(
    id: string | undefined,
    input: RuleChainMetadata,
    actor: Principal,
  ): Promise<StoredMetadata> {
    requireTenantAdmin(actor);
    const chainId = id ?? input.ruleChainId?.id;
    if (!chainId) throw invalidArgument("'ruleChainId' is required");
    const row = this.row(chainId);
    this.validate(input);
    const metadata: StoredMetadata = {
      firstNodeIndex: input.firstNodeIndex ?? (input.nodes.length ? 0 : null),
      nodes: input.nodes.map((n) => ({
        ...n,
        id: { entityType: 'RULE_NODE', id: n.id?.id ?? randomUUID() },
        debugMode: n.debugMode ?? false,
      })),
      connections: input.connections ?? [],
      ruleChainConnections: null,
      version: ((JSON.parse(row.metadata) as StoredMetadata).version ?? 0) + 1,
    };
    if (row.root) {
      // Build first: a chain that cannot run is refused before it is stored.
      const trial = new RuleEngine(this.registry, {
        services: null as never,
        edgeQueue: null as never,
        log: () => undefined,
      });
      try {
        trial.load(metadata, { start: false });
      } catch (err) {
        throw invalidArgument((err as Error).message);
      } finally {
        trial.stop();
      }
    }
    await this.ctx.db.write((w) =>
      w.run('UPDATE rule_chains SET metadata = ? WHERE id = ?', [JSON.stringify(metadata), row.id]),
    );
    if (row.root) this.engine.load(metadata);
    return { ...metadata, ruleChainId: ref('RULE_CHAIN', row.id) };
  }

  private validate(input: RuleChainMetadata): void {
    input.nodes.forEach((node, i) => {
      const def = this.registry.get(node.type);
      if (!def) throw invalidArgument(`nodes[${i}].type: unknown node type '${node.type}'`);
      const problem = def.validate(node.configuration);
      if (problem) throw invalidArgument(`nodes[${i}].configuration (${node.name}): ${problem}`);
    });
    const count = input.nodes.length;
    if (input.firstNodeIndex !== null && input.firstNodeIndex >= count) {
      throw invalidArgument(
        `firstNodeIndex: ${input.firstNodeIndex} is not a node index (there are ${count} nodes)`,
      );
    }
    (input.connections ?? []).forEach((c, i) => {
      if (c.fromIndex >= count) throw invalidArgument(`connections[${i}].fromIndex: no node ${c.fromIndex}`);
      if (c.toIndex >= count) throw invalidArgument(`connections[${i}].toIndex: no node ${c.toIndex}`);
    });
  }

  private rootRow(): RuleChainRow | undefined {
    return this.ctx.db.get<RuleChainRow>('SELECT * FROM rule_chains WHERE root = 1');
  }

  rootChainId(): string | undefined {
    return this.rootRow()?.id;
  }

  private row(id: string): RuleChainRow {
    const row = this.ctx.db.get<RuleChainRow>('SELECT * FROM rule_chains WHERE id = ?', [id]);
    if (!row) throw notFound(`Rule chain with id [${id}] is not found`);
    return row;
  }

  private toRuleChain(row: RuleChainRow): RuleChain {
    const metadata = JSON.parse(row.metadata) as StoredMetadata;
    const first =
      metadata.firstNodeIndex !== null ? metadata.nodes[metadata.firstNodeIndex]?.id?.id : undefined;
    return {
      id: ref('RULE_CHAIN', row.id),
      createdTime: row.created_time,
      tenantId: ref('TENANT', this.ctx.tenantId),
      name: row.name,
      type: row.type,
      root: row.root === 1,
      debugMode: row.debug_mode === 1,
      firstRuleNodeId: first ? ref('RULE_NODE', first) : null,
      configuration: row.configuration ? parseJson(row.configuration) : null,
      additionalInfo: parseJson(row.additional_info),
    };
  }
}

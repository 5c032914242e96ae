import { randomUUID } from 'node:crypto';
import type { PageData, PageQuery } from '../../shared/schemas/common.ts';
import {
  NODE_TYPES,
  type RuleChain,
  type RuleChainMetadata,
  type RuleChainOutputLabelsUsage,
  type RuleChainType,
  type SaveRuleChainRequest,
} from '../../shared/rule-engine.ts';
import { requireTenantAdmin, type Principal } from '../platform/auth/principal.ts';
import { ref, type PlatformContext } from '../platform/context.ts';
import { invalidArgument, notFound, PlatformError } from '../platform/errors.ts';
import { parseJson, queryPage } from '../platform/paging.ts';
import type { Row, Writer } from '../store/durable-db.ts';
import { prepareMetadata, readMetadata, type StoredMetadata, type StoredNode } from './chain-metadata.ts';
import { deviceProfileRuleChainFile, edgeRootRuleChainFile, rootRuleChainFile } from './default-chains.ts';
import type { NodeDefinition, RuleEnv } from './rule-node.ts';
import { RuleEngine, type ProfileRouting } from './rule-engine.ts';

export interface RuleChainRow {
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

/** Metadata as the API returns it: ThingsBoard's nodes, plus Sandboard's debugMode flag for its editor. */
export type MetadataView = StoredMetadata & {
  ruleChainId: { entityType: 'RULE_CHAIN'; id: string };
  nodes: (StoredNode & { ruleChainId: { entityType: 'RULE_CHAIN'; id: string }; debugMode: boolean })[];
};

const versionConflict = () =>
  new PlatformError(409, 35, 'The rule chain was already changed by someone else. Reload it and try again.');

const CACHED_DEVICE_PROFILES_MAX = 100_000;

/**
 * The tenant's rule chains as ThingsBoard keeps them (CORE and EDGE, one root of each), their metadata
 * (nodes + connections) and the engine that runs the CORE ones.
 */
export class RuleChainService {
  readonly ctx: PlatformContext;
  private readonly registry: Map<string, NodeDefinition>;
  private engineInstance: RuleEngine | null = null;
  private readonly deviceProfiles = new Map<string, string>();
  private readonly routing: ProfileRouting = {
    chains: new Map(),
    queues: new Map(),
    profileOf: (originator) => this.profileOf(originator),
  };

  constructor(ctx: PlatformContext, registry: Map<string, NodeDefinition>) {
    this.ctx = ctx;
    this.registry = registry;
  }

  /**
   * A new install gets ThingsBoard's root chain and edge template root; an existing one keeps its chains
   * (older chains get node ids, as ThingsBoard addresses nodes by id).
   */
  async seedDefaults(): Promise<void> {
    const rows = this.ctx.db.all<RuleChainRow>('SELECT * FROM rule_chains');
    if (rows.length === 0) {
      await this.ctx.db.write((w) => {
        for (const file of [rootRuleChainFile(), edgeRootRuleChainFile()]) {
          const md = prepareMetadata(file.metadata as RuleChainMetadata, {
            registry: this.registry,
            previous: null,
            now: this.ctx.now(),
            strict: false,
          });
          this.insertChain(w, randomUUID(), file.ruleChain, md);
        }
      });
      return;
    }
    const missingIds = rows.filter((r) =>
      (JSON.parse(r.metadata) as { nodes?: { id?: { id?: string } }[] }).nodes?.some((n) => !n.id?.id),
    );
    if (missingIds.length === 0) return;
    await this.ctx.db.write((w) => {
      for (const r of missingIds)
        w.run('UPDATE rule_chains SET metadata = ? WHERE id = ?', [
          JSON.stringify(readMetadata(r.metadata)),
          r.id,
        ]);
    });
  }

  /**
   * Builds the engine over the CORE chains; needs the finished services (nodes use them). With holdStart,
   * nodes that run on their own (generators) wait for engine.startNodes(), once the transports answer.
   */
  start(env: RuleEnv, options: { holdStart?: boolean } = {}): RuleEngine {
    const engine = new RuleEngine(this.registry, env, options);
    this.engineInstance = engine;
    for (const row of this.ctx.db.all<RuleChainRow>("SELECT * FROM rule_chains WHERE type = 'CORE'"))
      engine.loadChain(row.id, row.name, readMetadata(row.metadata));
    engine.setRoot(this.rootRow()?.id ?? null);
    this.refreshRouting();
    engine.setRouting(this.routing);
    const onProfile = () => this.refreshRouting();
    const onDevice = ({ deviceId }: { deviceId: string }) => this.deviceProfiles.delete(deviceId);
    const onSandbox = () => this.reloadAll();
    this.ctx.events.on('profileChanged', onProfile);
    this.ctx.events.on('deviceSaved', onDevice);
    this.ctx.events.on('deviceDeleted', onDevice);
    this.ctx.events.on('sandboxLoaded', onSandbox);
    this.stopListening = () => {
      this.ctx.events.off('sandboxLoaded', onSandbox);
      this.ctx.events.off('profileChanged', onProfile);
      this.ctx.events.off('deviceSaved', onDevice);
      this.ctx.events.off('deviceDeleted', onDevice);
    };
    return engine;
  }

  private stopListening = () => undefined as void;

  /** After a sandbox import: the engine runs the stored CORE chains again, and routing follows the profiles. */
  private reloadAll(): void {
    const engine = this.engine;
    const rows = this.ctx.db.all<RuleChainRow>("SELECT * FROM rule_chains WHERE type = 'CORE'");
    const kept = new Set(rows.map((r) => r.id));
    for (const id of engine.chainIds()) if (!kept.has(id)) engine.removeChain(id);
    for (const row of rows) engine.loadChain(row.id, row.name, readMetadata(row.metadata), { edited: true });
    engine.setRoot(this.rootRow()?.id ?? null);
    this.deviceProfiles.clear();
    this.refreshRouting();
  }

  /** Stops the engine's nodes (timers, connections). */
  stop(): void {
    this.stopListening();
    this.engineInstance?.stop();
  }

  get engine(): RuleEngine {
    if (!this.engineInstance) throw new Error('The rule engine is not started');
    return this.engineInstance;
  }

  nodeDefinitions(): NodeDefinition[] {
    return [...this.registry.values()];
  }

  // ---- profile routing -------------------------------------------------------------------------

  private refreshRouting(): void {
    const chains = new Map<string, string>();
    const queues = new Map<string, string>();
    type ProfileRow = { id: string; default_rule_chain_id: string | null; default_queue_name: string | null };
    const rows = [
      ...this.ctx.db.all<ProfileRow>(
        'SELECT id, default_rule_chain_id, default_queue_name FROM device_profiles',
      ),
      ...this.ctx.db.all<ProfileRow>(
        'SELECT id, default_rule_chain_id, default_queue_name FROM asset_profiles',
      ),
    ];
    for (const p of rows) {
      if (p.default_rule_chain_id) chains.set(p.id, p.default_rule_chain_id);
      if (p.default_queue_name) queues.set(p.id, p.default_queue_name);
    }
    this.routing.chains = chains;
    this.routing.queues = queues;
    this.deviceProfiles.clear();
  }

  private profileOf(originator: { entityType: string; id: string }): string | undefined {
    if (originator.entityType === 'ASSET')
      return this.ctx.db.get<{ asset_profile_id: string }>(
        'SELECT asset_profile_id FROM assets WHERE id = ?',
        [originator.id],
      )?.asset_profile_id;
    const deviceId = originator.id;
    let profile = this.deviceProfiles.get(deviceId);
    if (profile === undefined) {
      profile = this.ctx.db.get<{ device_profile_id: string }>(
        'SELECT device_profile_id FROM devices WHERE id = ?',
        [deviceId],
      )?.device_profile_id;
      if (profile === undefined) return undefined;
      if (this.deviceProfiles.size >= CACHED_DEVICE_PROFILES_MAX) this.deviceProfiles.clear();
      this.deviceProfiles.set(deviceId, profile);
    }
    return profile;
  }

  // ---- chains ------------------------------------------------------------------------------------

  page(q: PageQuery, type: RuleChainType | undefined, actor: Principal): PageData<RuleChain> {
    requireTenantAdmin(actor);
    return queryPage(
      this.ctx.db,
      {
        from: 'FROM rule_chains e',
        where: ['e.type = ?'],
        params: [type ?? 'CORE'],
        searchColumn: 'e.name',
        sortColumns: { createdTime: 'e.created_time', name: 'e.name', root: 'e.root' },
        defaultSort: 'createdTime',
      },
      q,
      (r: Row) => this.toRuleChain(r as unknown as RuleChainRow),
    );
  }

  byIds(ids: string[], actor: Principal): RuleChain[] {
    requireTenantAdmin(actor);
    return ids.flatMap((id) => {
      const row = this.ctx.db.get<RuleChainRow>('SELECT * FROM rule_chains WHERE id = ?', [id]);
      return row ? [this.toRuleChain(row)] : [];
    });
  }

  get(id: string, actor: Principal): RuleChain {
    requireTenantAdmin(actor);
    return this.toRuleChain(this.row(id));
  }

  rootChainId(): string | undefined {
    return this.rootRow()?.id;
  }

  /** POST /api/ruleChain: creates a chain (no id) or renames / changes one; its nodes stay. */
  async save(input: SaveRuleChainRequest, actor: Principal): Promise<RuleChain> {
    await this.ctx.admit?.();
    requireTenantAdmin(actor);
    const type: RuleChainType = input.type ?? 'CORE';
    const id = input.id?.id;
    const existing = id ? this.row(id) : undefined;
    if (existing && existing.type !== type) throw invalidArgument("A rule chain's type cannot be changed");
    if (input.root && !existing?.root) {
      const root = this.ctx.db.get<{ id: string }>('SELECT id FROM rule_chains WHERE root = 1 AND type = ?', [
        type,
      ]);
      if (root && root.id !== id)
        throw invalidArgument(
          type === 'CORE'
            ? 'Another root rule chain is present in scope of current tenant!'
            : 'Another edge template root rule chain is present in scope of current tenant!',
        );
    }
    // A root stays the root when saved with root=false: the root moves through /root (there is always one).
    const root = existing?.root === 1 || input.root === true;
    const chainId = id ?? randomUUID();
    await this.ctx.db.write((w) => {
      if (existing) {
        w.run(
          'UPDATE rule_chains SET name = ?, root = ?, debug_mode = ?, configuration = ?, additional_info = ? WHERE id = ?',
          [
            input.name,
            root ? 1 : 0,
            input.debugMode ? 1 : 0,
            input.configuration ? JSON.stringify(input.configuration) : null,
            JSON.stringify(input.additionalInfo ?? null),
            chainId,
          ],
        );
      } else {
        const empty: StoredMetadata = { firstNodeIndex: null, nodes: [], connections: [], version: 1 };
        this.insertChain(w, chainId, { ...input, type, root }, empty);
      }
    });
    const row = this.row(chainId);
    if (row.type === 'CORE') {
      this.engine.loadChain(row.id, row.name, readMetadata(row.metadata));
      if (row.root) this.engine.setRoot(row.id);
    }
    return this.toRuleChain(row);
  }

  /** ThingsBoard refuses to delete a root chain, and one a device profile sends its devices to. */
  async delete(id: string, actor: Principal): Promise<void> {
    requireTenantAdmin(actor);
    const row = this.row(id);
    if (row.root) {
      throw invalidArgument(
        row.type === 'CORE'
          ? 'Deletion of Root Tenant Rule Chain is prohibited!'
          : "Can't delete the edge template root rule chain. Please set another one first!",
      );
    }
    if (this.ctx.db.get('SELECT 1 FROM device_profiles WHERE default_rule_chain_id = ?', [id]))
      throw invalidArgument('The rule chain referenced by the device profiles cannot be deleted!');
    if (this.ctx.db.get('SELECT 1 FROM asset_profiles WHERE default_rule_chain_id = ?', [id]))
      throw invalidArgument('The rule chain referenced by the asset profiles cannot be deleted!');
    await this.ctx.db.write((w) => {
      w.run('DELETE FROM rule_chains WHERE id = ?', [id]);
      w.run(
        "DELETE FROM relations WHERE (to_id = ? AND to_type = 'RULE_CHAIN') OR (from_id = ? AND from_type = 'RULE_CHAIN')",
        [id, id],
      );
    });
    if (row.type === 'CORE') this.engine.removeChain(id);
  }

  /** Makes a CORE chain the root: every message without a profile chain starts there. */
  async setRoot(id: string, actor: Principal): Promise<RuleChain> {
    requireTenantAdmin(actor);
    const row = this.row(id);
    if (row.type !== 'CORE') throw invalidArgument('Only a CORE rule chain can be the root rule chain');
    await this.ctx.db.write((w) => {
      w.run("UPDATE rule_chains SET root = CASE WHEN id = ? THEN 1 ELSE 0 END WHERE type = 'CORE'", [id]);
    });
    this.engine.setRoot(id);
    return this.toRuleChain(this.row(id));
  }

  /** POST /api/ruleChain/device/default: a new chain like ThingsBoard's device profile chain template. */
  async createDeviceDefault(name: string, actor: Principal): Promise<RuleChain> {
    await this.ctx.admit?.();
    requireTenantAdmin(actor);
    const file = deviceProfileRuleChainFile(name);
    const id = randomUUID();
    const md = prepareMetadata(file.metadata as RuleChainMetadata, {
      registry: this.registry,
      previous: null,
      now: this.ctx.now(),
      strict: false,
    });
    await this.ctx.db.write((w) => this.insertChain(w, id, file.ruleChain, md));
    this.engine.loadChain(id, name, md);
    return this.toRuleChain(this.row(id));
  }

  // ---- metadata ----------------------------------------------------------------------------------

  metadata(id: string, actor: Principal): MetadataView {
    requireTenantAdmin(actor);
    return this.view(this.row(id));
  }

  /**
   * Stores a chain's nodes and connections (every known node's configuration is checked: 400 names the
   * field) and runs the new version at once. Unknown node classes are kept and fail their messages.
   */
  async saveMetadata(
    id: string | undefined,
    input: RuleChainMetadata,
    actor: Principal,
    { strict = true }: { strict?: boolean } = {},
  ): Promise<MetadataView> {
    requireTenantAdmin(actor);
    const chainId = id ?? input.ruleChainId?.id;
    if (!chainId) throw invalidArgument("'ruleChainId' is required");
    const row = this.row(chainId);
    const previous = readMetadata(row.metadata);
    if (input.version !== undefined && input.version !== null && input.version !== previous.version)
      throw versionConflict();
    const md = prepareMetadata(input, { registry: this.registry, previous, now: this.ctx.now(), strict });
    await this.ctx.admit?.();
    await this.ctx.db.write((w) =>
      w.run('UPDATE rule_chains SET metadata = ? WHERE id = ?', [JSON.stringify(md), row.id]),
    );
    if (row.type === 'CORE') this.engine.loadChain(row.id, row.name, md, { edited: true });
    return this.view({ ...row, metadata: JSON.stringify(md) });
  }

  /** The names of a chain's output nodes: the relations a rule chain node calling it can have. */
  outputLabels(id: string, actor: Principal): string[] {
    requireTenantAdmin(actor);
    const md = readMetadata(this.row(id).metadata);
    return [
      ...new Set(md.nodes.filter((n) => n.type === NODE_TYPES.ruleChainOutput).map((n) => n.name)),
    ].sort();
  }

  /** Which rule chain nodes call this chain, and on which of its output labels they go on. */
  outputLabelsUsage(id: string, actor: Principal): RuleChainOutputLabelsUsage[] {
    requireTenantAdmin(actor);
    this.row(id);
    const usage: RuleChainOutputLabelsUsage[] = [];
    for (const row of this.ctx.db.all<RuleChainRow>('SELECT * FROM rule_chains')) {
      const md = readMetadata(row.metadata);
      md.nodes.forEach((n, index) => {
        if (n.type !== NODE_TYPES.ruleChainInput || n.configuration.ruleChainId !== id) return;
        const labels = [...new Set(md.connections.filter((c) => c.fromIndex === index).map((c) => c.type))];
        if (labels.length === 0) return;
        usage.push({
          ruleChainId: ref('RULE_CHAIN', row.id),
          ruleNodeId: ref('RULE_NODE', n.id.id),
          ruleChainName: row.name,
          ruleNodeName: n.name,
          labels,
        });
      });
    }
    return usage.sort(
      (a, b) =>
        a.ruleChainName.localeCompare(b.ruleChainName) || a.ruleNodeName.localeCompare(b.ruleNodeName),
    );
  }

  // ---- edges -------------------------------------------------------------------------------------

  async setEdgeTemplateRoot(id: string, actor: Principal): Promise<RuleChain> {
    requireTenantAdmin(actor);
    const row = this.row(id);
    if (row.type !== 'EDGE') throw invalidArgument('Only an EDGE rule chain can be the edge template root');
    await this.ctx.db.write((w) =>
      w.run("UPDATE rule_chains SET root = CASE WHEN id = ? THEN 1 ELSE 0 END WHERE type = 'EDGE'", [id]),
    );
    return this.toRuleChain(this.row(id));
  }

  /** Marks (or unmarks) an EDGE chain to be assigned to every edge created from now on. */
  async setAutoAssignToEdge(id: string, on: boolean, actor: Principal): Promise<RuleChain> {
    requireTenantAdmin(actor);
    const row = this.row(id);
    if (row.type !== 'EDGE') throw invalidArgument('Only EDGE rule chains are assigned to edges');
    await this.ctx.db.write((w) => {
      if (on)
        w.run(
          `INSERT OR IGNORE INTO relations (from_id, from_type, to_id, to_type, type, type_group)
           VALUES (?, 'TENANT', ?, 'RULE_CHAIN', 'Contains', 'EDGE_AUTO_ASSIGN_RULE_CHAIN')`,
          [this.ctx.tenantId, id],
        );
      else
        w.run(
          "DELETE FROM relations WHERE to_id = ? AND to_type = 'RULE_CHAIN' AND type_group = 'EDGE_AUTO_ASSIGN_RULE_CHAIN'",
          [id],
        );
    });
    return this.toRuleChain(row);
  }

  autoAssignChains(actor: Principal): RuleChain[] {
    requireTenantAdmin(actor);
    return this.ctx.db
      .all<RuleChainRow>(
        `SELECT c.* FROM rule_chains c JOIN relations r ON r.to_id = c.id AND r.to_type = 'RULE_CHAIN'
         WHERE r.type_group = 'EDGE_AUTO_ASSIGN_RULE_CHAIN' ORDER BY c.created_time`,
      )
      .map((r) => this.toRuleChain(r));
  }

  async assignToEdge(chainId: string, edgeId: string, on: boolean, actor: Principal): Promise<RuleChain> {
    requireTenantAdmin(actor);
    const row = this.row(chainId);
    if (!this.ctx.db.get('SELECT 1 FROM edges WHERE id = ?', [edgeId]))
      throw notFound(`Edge with id [${edgeId}] is not found`);
    if (on && row.type !== 'EDGE') throw invalidArgument("Can't assign non EDGE ruleChain to edge!");
    await this.ctx.db.write((w) => {
      if (on)
        w.run(
          `INSERT OR IGNORE INTO relations (from_id, from_type, to_id, to_type, type, type_group)
           VALUES (?, 'EDGE', ?, 'RULE_CHAIN', 'Contains', 'EDGE')`,
          [edgeId, chainId],
        );
      else
        w.run(
          "DELETE FROM relations WHERE from_id = ? AND from_type = 'EDGE' AND to_id = ? AND to_type = 'RULE_CHAIN' AND type_group = 'EDGE'",
          [edgeId, chainId],
        );
    });
    return this.toRuleChain(row);
  }

  edgeChains(edgeId: string, q: PageQuery, actor: Principal): PageData<RuleChain> {
    requireTenantAdmin(actor);
    if (!this.ctx.db.get('SELECT 1 FROM edges WHERE id = ?', [edgeId]))
      throw notFound(`Edge with id [${edgeId}] is not found`);
    return queryPage(
      this.ctx.db,
      {
        from: "FROM rule_chains e JOIN relations r ON r.to_id = e.id AND r.to_type = 'RULE_CHAIN' AND r.from_type = 'EDGE' AND r.type_group = 'EDGE'",
        where: ['r.from_id = ?'],
        params: [edgeId],
        searchColumn: 'e.name',
        sortColumns: { createdTime: 'e.created_time', name: 'e.name', root: 'e.root' },
        defaultSort: 'createdTime',
      },
      q,
      (r: Row) => this.toRuleChain(r as unknown as RuleChainRow),
    );
  }

  // ---- rows --------------------------------------------------------------------------------------

  insertChain(
    w: Writer,
    id: string,
    chain: Pick<
      SaveRuleChainRequest,
      'name' | 'type' | 'root' | 'debugMode' | 'configuration' | 'additionalInfo'
    >,
    md: StoredMetadata,
  ): void {
    w.run(
      `INSERT INTO rule_chains (id, created_time, name, type, root, debug_mode, configuration, additional_info, metadata)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        this.ctx.now(),
        chain.name,
        chain.type ?? 'CORE',
        chain.root ? 1 : 0,
        chain.debugMode ? 1 : 0,
        chain.configuration ? JSON.stringify(chain.configuration) : null,
        JSON.stringify(chain.additionalInfo ?? null),
        JSON.stringify(md),
      ],
    );
  }

  rows(): RuleChainRow[] {
    return this.ctx.db.all<RuleChainRow>('SELECT * FROM rule_chains ORDER BY created_time');
  }

  rowOrUndefined(id: string): RuleChainRow | undefined {
    return this.ctx.db.get<RuleChainRow>('SELECT * FROM rule_chains WHERE id = ?', [id]);
  }

  row(id: string): RuleChainRow {
    const row = this.rowOrUndefined(id);
    if (!row) throw notFound(`Rule chain with id [${id}] is not found`);
    return row;
  }

  private rootRow(): RuleChainRow | undefined {
    return this.ctx.db.get<RuleChainRow>("SELECT * FROM rule_chains WHERE root = 1 AND type = 'CORE'");
  }

  view(row: RuleChainRow): MetadataView {
    const md = readMetadata(row.metadata);
    const now = Date.now();
    const ruleChainId = ref('RULE_CHAIN', row.id);
    return {
      ...md,
      ruleChainId,
      nodes: md.nodes.map((n) => ({ ...n, ruleChainId, debugMode: n.debugSettings.allEnabledUntil > now })),
    };
  }

  toRuleChain(row: RuleChainRow): RuleChain {
    const md = readMetadata(row.metadata);
    const first = md.firstNodeIndex !== null ? md.nodes[md.firstNodeIndex]?.id.id : undefined;
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
      additionalInfo:
        row.additional_info && row.additional_info !== 'null' ? parseJson(row.additional_info) : null,
      externalId: null,
      version: md.version,
    };
  }
}

import type { RuleChainMetadata } from '../../shared/rule-engine.ts';
import { NODE_TYPES } from '../../shared/rule-engine.ts';
import type { Originator, TbMsg } from '../platform/tb-msg.ts';
import { DebugLog, nodeDebug, type NodeDebug } from './debug-log.ts';
import { PerOriginator } from './per-originator.ts';
import {
  errorText,
  failure,
  type MsgRun,
  type NodeContext,
  type NodeDefinition,
  type NodeOutput,
  type RuleEnv,
  type RuleNode,
} from './rule-node.ts';

/** ThingsBoard's maxRuleNodeExecsPerMessage: a message (with what it turns into) visits at most this many nodes. */
export const MAX_NODE_EXECS_PER_MESSAGE = 1000;
/** Nested rule chain calls deeper than this fail (a chain that, through others, calls itself). */
const MAX_CHAIN_DEPTH = 32;

type StoredNode = RuleChainMetadata['nodes'][number];

export interface CompiledNode {
  id: string;
  name: string;
  type: string;
  ruleChainId: string;
  node: RuleNode;
  next: Map<string, number[]>;
  output: boolean;
  debug: NodeDebug;
  /** Why the node does not run (unknown class, configuration it cannot start with); null when it runs. */
  problem: string | null;
  /** its Failure fails the sender's acknowledgement (NodeDefinition.storesMessageData) */
  storesMessageData: boolean;
}

interface CompiledChain {
  id: string;
  name: string;
  nodes: CompiledNode[];
  first: number | null;
}

/** One message's way through the chains: its errors and how many nodes it visited. */
interface Trace {
  /** every Failure the message met, and the engine's own refusals */
  errors: string[];
  /** those that mean its data was not stored: a save node's Failure, the engine's refusals */
  notStored: string[];
  execs: number;
}

/** What a message's run through the chains came to. */
export interface RunOutcome {
  errors: string[];
  notStored: string[];
}

/** One entry into a chain; outputs collects what the chain's output nodes give back to its caller. */
interface ChainCall {
  chain: CompiledChain;
  trace: Trace;
  outputs: NodeOutput[] | null;
  depth: number;
  run: MsgRun;
}

/** What the engine needs to send a device's messages to its profile's chain. */
export interface ProfileRouting {
  /** device or asset profile id -> default rule chain id, only for profiles that name one */
  chains: Map<string, string>;
  /** device or asset profile id -> queue name, only for profiles that name one */
  queues: Map<string, string>;
  /** the profile of a device or an asset */
  profileOf(originator: Originator): string | undefined;
}

export const ROOT_CHAIN_KEY = 'root';

const hasProfile = (o: Originator) => o.entityType === 'DEVICE' || o.entityType === 'ASSET';

function unsupported(type: string): RuleNode {
  return {
    process: (msg) =>
      failure(
        msg,
        new Error(`Rule node type '${type}' is not supported by Sandboard; the message goes to Failure`),
      ),
  };
}

/**
 * Runs messages through the tenant's rule chains: a device's profile chain or the root chain, into nested
 * chains through rule chain nodes and back through their output nodes. process() resolves when every branch
 * the message took has finished, so a transport can acknowledge once the data is durable.
 */
export class RuleEngine {
  private readonly registry: Map<string, NodeDefinition>;
  private readonly env: RuleEnv;
  private readonly chains = new Map<string, CompiledChain>();
  private rootId: string | null = null;
  private routing: ProfileRouting | null = null;
  private readonly sequential = new PerOriginator();
  readonly debugLog = new DebugLog();
  private processed = 0;
  private failures = 0;
  /** false until startNodes(): chains load, but generators do not tick before the transports answer */
  private nodesStarted: boolean;

  constructor(registry: Map<string, NodeDefinition>, env: RuleEnv, options: { holdStart?: boolean } = {}) {
    this.registry = registry;
    this.env = env;
    this.nodesStarted = options.holdStart !== true;
  }

  /** Starts the nodes of every chain loaded while the engine held them (see holdStart). */
  startNodes(): void {
    if (this.nodesStarted) return;
    this.nodesStarted = true;
    for (const chain of this.chains.values()) this.startNodesOf(chain);
  }

  /** Replaces the root chain (the one chain of a single-chain engine). */
  load(metadata: RuleChainMetadata, options: { start?: boolean; name?: string } = {}): void {
    this.loadChain(this.rootId ?? ROOT_CHAIN_KEY, options.name ?? 'Root Rule Chain', metadata, options);
    this.rootId ??= ROOT_CHAIN_KEY;
  }

  /**
   * Builds (or rebuilds) a chain; nodes that cannot start fail their messages instead of failing the load.
   * The old version's nodes are destroyed; the new one's are started (generators begin to tick) unless
   * `start` is false or the engine holds its nodes. `edited`: a person saved the chain, so nodes suspended
   * by a crash (UserCodeGuard) run again.
   */
  loadChain(
    id: string,
    name: string,
    metadata: RuleChainMetadata,
    options: { start?: boolean; edited?: boolean } = {},
  ): void {
    if (options.edited) this.env.userCode?.clear(metadata.nodes.flatMap((n) => (n.id?.id ? [n.id.id] : [])));
    const chain: CompiledChain = { id, name, nodes: [], first: null };
    chain.nodes = metadata.nodes.map((n, i) => this.compile(chain, n, i));
    for (const c of metadata.connections ?? []) {
      const from = chain.nodes[c.fromIndex];
      if (!from || !chain.nodes[c.toIndex]) continue;
      const list = from.next.get(c.type) ?? [];
      list.push(c.toIndex);
      from.next.set(c.type, list);
    }
    chain.first =
      metadata.firstNodeIndex !== null &&
      metadata.firstNodeIndex !== undefined &&
      chain.nodes[metadata.firstNodeIndex]
        ? metadata.firstNodeIndex
        : null;
    const old = this.chains.get(id);
    this.chains.set(id, chain);
    if (old) this.destroy(old, new Set(chain.nodes.map((n) => n.id)));
    if (options.start === false || !this.nodesStarted) return;
    this.startNodesOf(chain);
  }

  private startNodesOf(chain: CompiledChain): void {
    for (const n of chain.nodes)
      n.node.start?.((outputs) => {
        this.processed++;
        for (const out of outputs) this.tellNext(chain.id, n.id, out.msg, out.relation);
      });
  }

  /** Destroys every chain's nodes (timers, connections, script contexts); the engine then runs nothing. */
  stop(): void {
    for (const id of [...this.chains.keys()]) this.removeChain(id);
  }

  /** The ids of the chains loaded. */
  chainIds(): string[] {
    return [...this.chains.keys()];
  }

  removeChain(id: string): void {
    const old = this.chains.get(id);
    if (!old) return;
    this.chains.delete(id);
    if (this.rootId === id) this.rootId = null;
    this.destroy(old, new Set());
  }

  setRoot(id: string | null): void {
    this.rootId = id;
  }

  setRouting(routing: ProfileRouting | null): void {
    this.routing = routing;
  }

  /** The node as the engine runs it, for the UI and the API (why a node does not run). */
  node(nodeId: string): CompiledNode | undefined {
    for (const chain of this.chains.values()) for (const n of chain.nodes) if (n.id === nodeId) return n;
    return undefined;
  }

  /** Why a node does not run: it could not start, or it stopped since (its script suspended); null if it runs. */
  nodeProblem(n: CompiledNode): string | null {
    if (n.problem) return n.problem;
    try {
      return n.node.problem?.() ?? null;
    } catch (err) {
      return errorText(err);
    }
  }

  /** Resolves with the errors of every Failure the message met on its way (empty: all went well). */
  async process(msg: TbMsg): Promise<string[]> {
    return (await this.run(msg)).errors;
  }

  /**
   * For a sender waiting for its acknowledgement: resolves with the reasons its data was not stored (a save
   * node's Failure), empty when it was, or was not meant to be. Other nodes' failures are not the sender's,
   * as in ThingsBoard, whose transports acknowledge once a message is queued for the chains.
   */
  async acknowledge(msg: TbMsg): Promise<string[]> {
    return (await this.run(msg)).notStored;
  }

  private async run(msg: TbMsg): Promise<RunOutcome> {
    this.processed++;
    const chain = this.startChain(msg);
    if (!chain) return { errors: [], notStored: [] };
    const queue = msg.queueName ?? this.queueOf(msg.originator);
    if (queue === 'SequentialByOriginator')
      return this.sequential.run(msg.originator.id, () => this.runTop(chain, msg));
    return this.runTop(chain, msg);
  }

  /** Like process(), for producers that must not wait or fail (REST events, connect events). */
  submit(msg: TbMsg): void {
    this.process(msg).then(
      (errors) => {
        if (errors.length) this.env.log(`[rule engine] ${msg.type} failed: ${errors.join('; ')}`);
      },
      (err: unknown) => this.env.log(`[rule engine] ${msg.type} failed: ${errorText(err)}`),
    );
  }

  stats(): { processed: number; failures: number } {
    return { processed: this.processed, failures: this.failures };
  }

  /** The default rule chain of a device's or an asset's profile, if it names one. */
  defaultRuleChainOf(originator: Originator): string | undefined {
    const routing = this.routing;
    if (!routing || routing.chains.size === 0 || !hasProfile(originator)) return undefined;
    const profile = routing.profileOf(originator);
    return profile ? routing.chains.get(profile) : undefined;
  }

  private queueOf(originator: Originator): string | undefined {
    const routing = this.routing;
    if (!routing || routing.queues.size === 0 || !hasProfile(originator)) return undefined;
    const profile = routing.profileOf(originator);
    return profile ? routing.queues.get(profile) : undefined;
  }

  private startChain(msg: TbMsg): CompiledChain | undefined {
    const id = msg.ruleChainId ?? this.defaultRuleChainOf(msg.originator);
    return (
      (id !== undefined ? this.chains.get(id) : undefined) ??
      (this.rootId ? this.chains.get(this.rootId) : undefined)
    );
  }

  private async runTop(chain: CompiledChain, msg: TbMsg): Promise<RunOutcome> {
    const trace: Trace = { errors: [], notStored: [], execs: 0 };
    await this.enter(chain, msg, trace, null, 0);
    return { errors: trace.errors, notStored: trace.notStored };
  }

  /** Runs a chain from its first node; resolves with its outputs when it was called by a rule chain node. */
  private async enter(
    chain: CompiledChain,
    msg: TbMsg,
    trace: Trace,
    outputs: NodeOutput[] | null,
    depth: number,
  ): Promise<void> {
    if (chain.first === null) return;
    const call = this.call(chain, trace, outputs, depth);
    await this.runNode(call, chain.first, msg, null);
  }

  private call(chain: CompiledChain, trace: Trace, outputs: NodeOutput[] | null, depth: number): ChainCall {
    return {
      chain,
      trace,
      outputs,
      depth,
      run: {
        input: async (ruleChainId, m) => {
          const target = this.chains.get(ruleChainId);
          if (!target) throw new Error(`Rule chain [${ruleChainId}] is not found or is not a CORE chain`);
          if (depth + 1 > MAX_CHAIN_DEPTH)
            throw new Error(`Rule chains call each other more than ${MAX_CHAIN_DEPTH} levels deep`);
          const out: NodeOutput[] = [];
          await this.enter(target, m, trace, out, depth + 1);
          return out;
        },
      },
    };
  }

  private async runNode(call: ChainCall, index: number, msg: TbMsg, from: string | null): Promise<void> {
    const n = call.chain.nodes[index];
    if (!n) return;
    if (++call.trace.execs > MAX_NODE_EXECS_PER_MESSAGE) {
      if (call.trace.execs === MAX_NODE_EXECS_PER_MESSAGE + 1) {
        const error = `Message is processed by more than ${MAX_NODE_EXECS_PER_MESSAGE} rule nodes!`;
        call.trace.errors.push(error);
        call.trace.notStored.push(error);
      }
      return;
    }
    const debugAll = (n.debug.allUntil > 0 && n.debug.allUntil > Date.now()) || this.debugLog.watched(msg);
    if (debugAll) this.debugLog.record(n, 'IN', from, msg, null);
    if (n.output) {
      if (debugAll) this.debugLog.record(n, 'OUT', n.name, msg, null);
      call.outputs?.push({ relation: n.name, msg });
      return;
    }
    let outputs: NodeOutput[];
    try {
      outputs = await n.node.process(msg, call.run);
    } catch (err) {
      outputs = failure(msg, err);
    }
    let branches: Promise<void>[] | null = null;
    let single: Promise<void> | null = null;
    for (const out of outputs) {
      const isFailure = out.relation === 'Failure';
      if (debugAll || (isFailure && n.debug.failures))
        this.debugLog.record(
          n,
          'OUT',
          out.relation,
          out.msg,
          isFailure ? (out.msg.metadata.error ?? 'failed') : null,
        );
      if (isFailure) {
        this.failures++;
        const error = `${n.name}: ${out.msg.metadata.error ?? 'failed'}`;
        call.trace.errors.push(error);
        if (n.storesMessageData) call.trace.notStored.push(error);
      }
      const targets = n.next.get(out.relation);
      if (!targets) continue;
      for (const t of targets) {
        const p = this.runNode(call, t, out.msg, out.relation);
        if (!single && !branches) single = p;
        else (branches ??= [single!]).push(p);
      }
    }
    if (branches) await Promise.all(branches);
    else if (single) await single;
  }

  private compile(chain: CompiledChain, stored: StoredNode, index: number): CompiledNode {
    const id = stored.id?.id ?? `${chain.id}:${index}`;
    const compiled: CompiledNode = {
      id,
      name: stored.name,
      type: stored.type,
      ruleChainId: chain.id,
      node: unsupported(stored.type),
      next: new Map(),
      output: stored.type === NODE_TYPES.ruleChainOutput,
      debug: nodeDebug(stored),
      problem: null,
      storesMessageData: false,
    };
    const def = this.registry.get(stored.type);
    if (!def) {
      compiled.problem = `Rule node type '${stored.type}' is not supported by Sandboard`;
      return compiled;
    }
    compiled.storesMessageData = def.storesMessageData === true;
    const context: NodeContext = {
      id,
      name: stored.name,
      ruleChainId: chain.id,
      tellNext: (msg, relation) => this.tellNext(chain.id, id, msg, relation),
      enqueue: (msg) => this.submit(msg),
      defaultRuleChainOf: (o) => this.defaultRuleChainOf(o),
    };
    try {
      compiled.node = def.create(stored.configuration, this.env, context);
    } catch (err) {
      const problem = `'${stored.name}' failed to initialize: ${errorText(err)}`;
      compiled.problem = problem;
      compiled.node = { process: (msg) => failure(msg, new Error(problem)) };
    }
    return compiled;
  }

  /** A message a node sends on its own: follows the node's connections in its chain's current version. */
  private tellNext(chainId: string, nodeId: string, msg: TbMsg, relation: string): void {
    const chain = this.chains.get(chainId);
    const n = chain?.nodes.find((x) => x.id === nodeId);
    if (!chain || !n) return;
    const trace: Trace = { errors: [], notStored: [], execs: 0 };
    const call = this.call(chain, trace, null, 0);
    const isFailure = relation === 'Failure';
    if (n.debug.allUntil > Date.now() || (isFailure && n.debug.failures) || this.debugLog.watched(msg))
      this.debugLog.record(n, 'OUT', relation, msg, isFailure ? (msg.metadata.error ?? 'failed') : null);
    const targets = n.next.get(relation) ?? [];
    void Promise.all(targets.map((t) => this.runNode(call, t, msg, relation))).then(
      () => {
        if (trace.errors.length)
          this.env.log(`[rule engine] ${msg.type} from '${n.name}' failed: ${trace.errors.join('; ')}`);
      },
      (err: unknown) => this.env.log(`[rule engine] ${msg.type} from '${n.name}' failed: ${errorText(err)}`),
    );
  }

  private destroy(chain: CompiledChain, keptIds: Set<string>): void {
    for (const n of chain.nodes) {
      try {
        const done = n.node.destroy?.();
        if (done) done.catch(() => undefined);
      } catch {
        // a node that cannot clean up must not stop the others
      }
    }
    this.debugLog.forget(chain.nodes.map((n) => n.id).filter((id) => !keptIds.has(id)));
  }
}

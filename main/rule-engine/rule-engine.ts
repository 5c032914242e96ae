import type { RuleChainMetadata } from '../../shared/rule-engine.ts';
import type { NodeDefinition, NodeOutput, RuleEnv, RuleNode } from './rule-node.ts';
import type { TbMsg } from '../platform/tb-msg.ts';

export interface DebugEvent {
  ts: number;
  direction: 'IN' | 'OUT';
  relation: string | null;
  msgType: string;
  originator: string;
  data: unknown;
  metadata: Record<string, string>;
  error: string | null;
}

interface CompiledNode {
  id: string;
  name: string;
  debug: boolean;
  node: RuleNode;
  next: Map<string, number[]>;
}

const DEBUG_EVENTS_KEPT = 30;

/**
 * Runs messages through the root chain. process() resolves when every branch the message took has
 * finished, so a transport can acknowledge once the data is durable.
 */
export class RuleEngine {
  private readonly registry: Map<string, NodeDefinition>;
  private readonly env: RuleEnv;
  private nodes: CompiledNode[] = [];
  private first: number | null = null;
  private readonly debug = new Map<string, DebugEvent[]>();
  private processed = 0;
  private failures = 0;

  constructor(registry: Map<string, NodeDefinition>, env: RuleEnv) {
    this.registry = registry;
    this.env = env;
  }

  /**
   * Replaces the running chain; throws (and keeps the old one) if a node cannot be built. The old chain's
   * nodes are destroyed; the new one's are started (generators begin to tick) unless `start` is false.
   */
  load(
    metadata: RuleChainMetadata & { nodes: { id?: { id: string } }[] },
    options: { start?: boolean } = {},
  ): void {
    const nodes: CompiledNode[] = metadata.nodes.map((n, i) => {
      const def = this.registry.get(n.type);
      if (!def) throw new Error(`nodes[${i}].type: unknown node type '${n.type}'`);
      return {
        id: n.id?.id ?? String(i),
        name: n.name,
        debug: n.debugMode === true,
        node: def.create(n.configuration, this.env),
        next: new Map(),
      };
    });
    for (const c of metadata.connections ?? []) {
      const from = nodes[c.fromIndex];
      if (!from || !nodes[c.toIndex]) continue;
      const list = from.next.get(c.type) ?? [];
      list.push(c.toIndex);
      from.next.set(c.type, list);
    }
    const old = this.nodes;
    this.nodes = nodes;
    this.first = metadata.firstNodeIndex ?? (nodes.length > 0 ? 0 : null);
    for (const c of old) c.node.destroy?.();
    if (options.start === false) return;
    for (const c of nodes) c.node.start?.((outputs) => this.emitFrom(c, outputs));
  }

  /** Destroys the running chain's nodes (timers, script contexts); the engine then runs nothing. */
  stop(): void {
    const old = this.nodes;
    this.nodes = [];
    this.first = null;
    for (const c of old) c.node.destroy?.();
  }

  /** Messages a node made by itself (a generator) follow its relations like any other output. */
  private emitFrom(compiled: CompiledNode, outputs: NodeOutput[]): void {
    if (!this.nodes.includes(compiled)) return;
    this.processed++;
    const errors: string[] = [];
    this.follow(compiled, outputs, errors).then(
      () => {
        if (errors.length) this.env.log(`[rule engine] ${compiled.name} failed: ${errors.join('; ')}`);
      },
      (err: unknown) => this.env.log(`[rule engine] ${compiled.name} failed: ${(err as Error).message}`),
    );
  }

  /** Resolves with the errors of every Failure the message met on its way (empty: all went well). */
  async process(msg: TbMsg): Promise<string[]> {
    this.processed++;
    const errors: string[] = [];
    if (this.first !== null) await this.run(this.first, msg, errors);
    return errors;
  }

  /** Like process(), for producers that must not wait or fail (REST events, connect events). */
  submit(msg: TbMsg): void {
    this.process(msg).then(
      (errors) => {
        if (errors.length) this.env.log(`[rule engine] ${msg.type} failed: ${errors.join('; ')}`);
      },
      (err: unknown) => this.env.log(`[rule engine] ${msg.type} failed: ${(err as Error).message}`),
    );
  }

  debugEvents(nodeId: string): DebugEvent[] {
    return this.debug.get(nodeId) ?? [];
  }

  stats(): { processed: number; failures: number } {
    return { processed: this.processed, failures: this.failures };
  }

  private async run(index: number, msg: TbMsg, errors: string[]): Promise<void> {
    const compiled = this.nodes[index];
    if (!compiled) return;
    if (compiled.debug) this.record(compiled.id, 'IN', null, msg);
    let outputs: NodeOutput[];
    try {
      outputs = await compiled.node.process(msg);
    } catch (err) {
      outputs = [
        {
          relation: 'Failure',
          msg: { ...msg, metadata: { ...msg.metadata, error: (err as Error).message } },
        },
      ];
    }
    await this.follow(compiled, outputs, errors);
  }

  private async follow(compiled: CompiledNode, outputs: NodeOutput[], errors: string[]): Promise<void> {
    const branches: Promise<void>[] = [];
    for (const out of outputs) {
      if (out.relation === 'Failure') {
        this.failures++;
        errors.push(`${compiled.name}: ${out.msg.metadata.error ?? 'failed'}`);
      }
      if (compiled.debug) this.record(compiled.id, 'OUT', out.relation, out.msg);
      for (const next of compiled.next.get(out.relation) ?? [])
        branches.push(this.run(next, out.msg, errors));
    }
    if (branches.length === 1) await branches[0];
    else if (branches.length > 1) await Promise.all(branches);
  }

  private record(nodeId: string, direction: 'IN' | 'OUT', relation: string | null, msg: TbMsg): void {
    const list = this.debug.get(nodeId) ?? [];
    list.push({
      ts: Date.now(),
      direction,
      relation,
      msgType: msg.type,
      originator: `${msg.originator.entityType} ${msg.originator.id}`,
      data: msg.data,
      metadata: msg.metadata,
      error: msg.metadata.error ?? null,
    });
    if (list.length > DEBUG_EVENTS_KEPT) list.shift();
    this.debug.set(nodeId, list);
  }
}

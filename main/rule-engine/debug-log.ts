import { randomUUID } from 'node:crypto';
import type { DebugSettings } from '../../shared/rule-engine.ts';
import type { TbMsg } from '../platform/tb-msg.ts';

/** ThingsBoard's default (DebugModeUtil): "debug all" switches itself off after 15 minutes. */
export const DEBUG_ALL_MAX_MS = 15 * 60_000;
/** Events kept per node, newest last; older ones are dropped. */
export const DEBUG_EVENTS_PER_NODE = 100;
/** A debug event keeps at most this many characters of the message data and of its metadata. */
const DEBUG_TEXT_MAX = 32_768;

export interface DebugEvent {
  id: string;
  ts: number;
  nodeId: string;
  nodeName: string;
  ruleChainId: string;
  direction: 'IN' | 'OUT';
  relation: string | null;
  msgId: string;
  traceId: string;
  parentId: string | null;
  msgType: string;
  originator: { entityType: string; id: string };
  /** As ThingsBoard stores it: the data as JSON text, the metadata as a JSON object's text. */
  data: string;
  metadata: string;
  error: string | null;
}

/** When a node records events, as the engine checks it for each message. */
export interface NodeDebug {
  /** ms since epoch until which everything is recorded; 0: off */
  allUntil: number;
  failures: boolean;
}

/**
 * ThingsBoard's rule of saving debug settings: "all" becomes a deadline at most DEBUG_ALL_MAX_MS away, and
 * the deprecated debugMode flag means failures plus everything until that deadline. debugMode false never
 * overrides settings (ThingsBoard's clients send settings only).
 */
export function effectiveDebugSettings(
  node: { debugMode?: boolean; debugSettings?: DebugSettings | null },
  now: number,
): Required<Pick<DebugSettings, 'failuresEnabled' | 'allEnabled' | 'allEnabledUntil'>> {
  const max = now + DEBUG_ALL_MAX_MS;
  const s = node.debugSettings;
  // The old flag switched on over settings that are off (an editor that only knows debugMode) turns "all" on.
  const switchedOn = node.debugMode === true && (!s || (!s.allEnabled && (s.allEnabledUntil ?? 0) <= now));
  if (switchedOn) return { failuresEnabled: true, allEnabled: false, allEnabledUntil: max };
  if (s) {
    return {
      failuresEnabled: s.failuresEnabled === true,
      allEnabled: false,
      allEnabledUntil: s.allEnabled ? max : Math.min(s.allEnabledUntil ?? 0, max),
    };
  }
  return { failuresEnabled: false, allEnabled: false, allEnabledUntil: 0 };
}

/** How a stored node's settings are applied when its chain loads. */
export function nodeDebug(node: { debugMode?: boolean; debugSettings?: DebugSettings | null }): NodeDebug {
  const s = node.debugSettings;
  if (s) return { allUntil: s.allEnabledUntil ?? 0, failures: s.failuresEnabled === true };
  // A chain stored before debug settings existed: the old flag keeps failures on.
  return { allUntil: 0, failures: node.debugMode === true };
}

function text(value: string): string {
  return value.length > DEBUG_TEXT_MAX ? `${value.slice(0, DEBUG_TEXT_MAX)}…[truncated]` : value;
}

export interface DebugFilter {
  direction?: string;
  msgId?: string;
  traceId?: string;
  msgType?: string;
  relationType?: string;
  entityId?: string;
  entityType?: string;
  dataSearch?: string;
  metadataSearch?: string;
  isError?: boolean;
  errorStr?: string;
  startTime?: number;
  endTime?: number;
}

/** Hears every event of a watched message (and what it becomes), with the message itself. */
export type TraceWatcher = (event: DebugEvent, msg: TbMsg) => void;

/**
 * The last DEBUG_EVENTS_PER_NODE debug events of every node, in memory. A watched trace (a rule chain
 * test's input) is recorded at every node, whatever the node's debug settings, and told to its watcher.
 */
export class DebugLog {
  private readonly byNode = new Map<string, DebugEvent[]>();
  private readonly watchers = new Map<string, TraceWatcher>();

  /** Records every node's events of this trace until the returned function is called. */
  watch(traceId: string, watcher: TraceWatcher): () => void {
    this.watchers.set(traceId, watcher);
    return () => {
      this.watchers.delete(traceId);
    };
  }

  watched(msg: TbMsg): boolean {
    return this.watchers.size > 0 && this.watchers.has(msg.traceId ?? msg.id);
  }

  record(
    node: { id: string; name: string; ruleChainId: string },
    direction: 'IN' | 'OUT',
    relation: string | null,
    msg: TbMsg,
    error: string | null,
  ): void {
    let list = this.byNode.get(node.id);
    if (!list) this.byNode.set(node.id, (list = []));
    list.push({
      id: randomUUID(),
      ts: Date.now(),
      nodeId: node.id,
      nodeName: node.name,
      ruleChainId: node.ruleChainId,
      direction,
      relation,
      msgId: msg.id,
      traceId: msg.traceId ?? msg.id,
      parentId: msg.parentId ?? null,
      msgType: msg.type,
      originator: { entityType: msg.originator.entityType, id: msg.originator.id },
      data: text(JSON.stringify(msg.data) ?? 'null'),
      metadata: text(JSON.stringify(msg.metadata)),
      error,
    });
    if (list.length > DEBUG_EVENTS_PER_NODE) list.splice(0, list.length - DEBUG_EVENTS_PER_NODE);
    if (this.watchers.size > 0) this.watchers.get(list.at(-1)!.traceId)?.(list.at(-1)!, msg);
  }

  /** A node's events, newest last. */
  events(nodeId: string): DebugEvent[] {
    return this.byNode.get(nodeId) ?? [];
  }

  /** Every recorded event of one message and the messages made from it, across nodes and chains, by time. */
  trace(traceId: string): DebugEvent[] {
    const out: DebugEvent[] = [];
    for (const list of this.byNode.values()) for (const e of list) if (e.traceId === traceId) out.push(e);
    return out.sort((a, b) => a.ts - b.ts);
  }

  /** Drops a node's events matching the filter (all when empty); returns how many went. */
  clear(nodeId: string, filter: DebugFilter = {}): number {
    const list = this.byNode.get(nodeId);
    if (!list) return 0;
    const keep = list.filter((e) => !matches(e, filter));
    if (keep.length) this.byNode.set(nodeId, keep);
    else this.byNode.delete(nodeId);
    return list.length - keep.length;
  }

  forget(nodeIds: Iterable<string>): void {
    for (const id of nodeIds) this.byNode.delete(id);
  }
}

const contains = (haystack: string, needle: string) => haystack.toLowerCase().includes(needle.toLowerCase());

export function matches(e: DebugEvent, f: DebugFilter): boolean {
  if (f.direction && e.direction !== f.direction) return false;
  if (f.msgId && e.msgId !== f.msgId) return false;
  if (f.traceId && e.traceId !== f.traceId) return false;
  if (f.msgType && e.msgType !== f.msgType) return false;
  if (f.relationType && e.relation !== f.relationType) return false;
  if (f.entityId && e.originator.id !== f.entityId) return false;
  if (f.entityType && e.originator.entityType !== f.entityType) return false;
  if (f.dataSearch && !contains(e.data, f.dataSearch)) return false;
  if (f.metadataSearch && !contains(e.metadata, f.metadataSearch)) return false;
  if (f.isError === true && !e.error) return false;
  if (f.isError === false && e.error) return false;
  if (f.errorStr && !(e.error && contains(e.error, f.errorStr))) return false;
  if (f.startTime !== undefined && e.ts < f.startTime) return false;
  if (f.endTime !== undefined && e.ts > f.endTime) return false;
  return true;
}

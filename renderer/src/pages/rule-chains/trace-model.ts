/**
 * A message's trace (every debug event of it and of what it became, by time) as the editor shows it: the
 * nodes it visited in order, and what of one chain's graph it went through.
 */
import type { MessageTraceEvent } from '../../../../shared/rule-engine.ts';
import type { ChainDraft } from './chain-model.ts';
import type { GraphHighlight } from './graph-layout.ts';

/** One visit of a node: the message in, and what left the node (by relation). */
export interface TraceVisit {
  step: number;
  nodeId: string;
  nodeName: string;
  ruleChainId: string;
  in: MessageTraceEvent | null;
  outs: MessageTraceEvent[];
}

/** Visits in time order; an OUT belongs to the latest visit of its node by the same message. */
export function traceVisits(events: MessageTraceEvent[]): TraceVisit[] {
  const visits: TraceVisit[] = [];
  const open = new Map<string, TraceVisit>();
  const visit = (e: MessageTraceEvent): TraceVisit => {
    const v: TraceVisit = {
      step: visits.length + 1,
      nodeId: e.nodeId,
      nodeName: e.nodeName,
      ruleChainId: e.ruleChainId,
      in: e.direction === 'IN' ? e : null,
      outs: [],
    };
    visits.push(v);
    open.set(`${e.nodeId}|${e.msgId}`, v);
    return v;
  };
  for (const e of [...events].sort((a, b) => a.ts - b.ts)) {
    if (e.direction === 'IN') {
      visit(e);
      continue;
    }
    // a node may send a message made from the one it got (a new id): it still belongs to the node's visit;
    // an OUT whose IN was not recorded is a visit of its own
    const v =
      open.get(`${e.nodeId}|${e.msgId}`) ??
      [...visits].reverse().find((x) => x.nodeId === e.nodeId && x.outs.length === 0) ??
      visit(e);
    v.outs.push(e);
  }
  return visits;
}

/** What of a chain's graph the message went through: the steps at each node, the connections it took. */
export function graphHighlight(visits: TraceVisit[], draft: ChainDraft, chainId: string): GraphHighlight {
  const indexOf = new Map(draft.nodes.map((n, i) => [n.id?.id, i] as const));
  const steps = new Map<number, number[]>();
  const here = visits.filter((v) => v.ruleChainId === chainId && indexOf.has(v.nodeId));
  for (const v of here) {
    const i = indexOf.get(v.nodeId)!;
    steps.set(i, [...(steps.get(i) ?? []), v.step]);
  }
  const arrows = new Set<string>();
  for (const c of draft.connections) {
    const from = draft.nodes[c.fromIndex]?.id?.id;
    const to = draft.nodes[c.toIndex]?.id?.id;
    if (!from || !to) continue;
    const left = here.find((v) => v.nodeId === from && v.outs.some((o) => o.relation === c.type));
    if (!left) continue;
    const arrived = here.some((v) => v.nodeId === to && v.step > left.step && v.in?.relation === c.type);
    if (arrived) arrows.add(`${c.fromIndex}->${c.toIndex}`);
  }
  return { steps, arrows };
}

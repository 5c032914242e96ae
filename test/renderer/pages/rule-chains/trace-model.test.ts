import { describe, expect, it } from 'vitest';
import type { MessageTraceEvent } from '../../../../shared/rule-engine.ts';
import { graphHighlight, traceVisits } from '../../../../renderer/src/pages/rule-chains/trace-model.ts';
import { chain, node } from './chain-fixtures.ts';

let seq = 0;
const ev = (
  nodeId: string,
  direction: 'IN' | 'OUT',
  relation: string | null,
  extra: Partial<MessageTraceEvent> = {},
): MessageTraceEvent => ({
  id: `e${++seq}`,
  ts: seq,
  nodeId,
  nodeName: nodeId,
  ruleChainId: 'root',
  direction,
  relation,
  msgId: 'm1',
  traceId: 'm1',
  parentId: null,
  msgType: 'POST_TELEMETRY_REQUEST',
  originator: { entityType: 'DEVICE', id: 'd1' },
  data: '{}',
  metadata: '{}',
  error: null,
  ...extra,
});

describe('following a message', () => {
  it('numbers the visits in time order and marks the connections the message took', () => {
    const events = [
      ev('switch', 'IN', null),
      ev('switch', 'OUT', 'Post telemetry'),
      ev('save', 'IN', 'Post telemetry'),
      ev('save', 'OUT', 'Success'),
      ev('inner', 'IN', null, { ruleChainId: 'other' }),
    ];
    const visits = traceVisits([...events].reverse());
    expect(visits.map((v) => [v.step, v.nodeId, v.outs.map((o) => o.relation)])).toEqual([
      [1, 'switch', ['Post telemetry']],
      [2, 'save', ['Success']],
      [3, 'inner', []],
    ]);
    const d = chain(
      [node('switch', 100, 100), node('save', 400, 100), node('log', 400, 300)],
      [
        { fromIndex: 0, toIndex: 1, type: 'Post telemetry' },
        { fromIndex: 0, toIndex: 2, type: 'Other' },
      ],
    );
    const h = graphHighlight(visits, d, 'root');
    expect([...h.steps]).toEqual([
      [0, [1]],
      [1, [2]],
    ]);
    expect([...h.arrows]).toEqual(['0->1']);
    // on another chain's graph, nothing of this one is marked
    expect(graphHighlight(visits, d, 'other').arrows.size).toBe(0);
  });

  it('a message a node made from the one it got (an alarm, a new id) belongs to that visit', () => {
    const visits = traceVisits([
      ev('alarm', 'IN', 'True'),
      ev('alarm', 'OUT', 'Created', { msgId: 'm2', parentId: 'm1', msgType: 'ALARM' }),
      ev('log', 'IN', 'Created', { msgId: 'm2', parentId: 'm1', msgType: 'ALARM' }),
    ]);
    expect(visits.map((v) => [v.nodeId, v.outs.map((o) => o.msgType)])).toEqual([
      ['alarm', ['ALARM']],
      ['log', []],
    ]);
  });

  it('a node visited twice (a loop) has both steps, and an OUT whose IN was not recorded is its own visit', () => {
    const visits = traceVisits([
      ev('check', 'OUT', 'Failure'),
      ev('retry', 'IN', 'Failure'),
      ev('retry', 'OUT', 'Success'),
      ev('retry', 'IN', 'Success', { msgId: 'm3' }),
    ]);
    expect(visits.map((v) => [v.step, v.nodeId, v.in?.relation ?? null])).toEqual([
      [1, 'check', null],
      [2, 'retry', 'Failure'],
      [3, 'retry', 'Success'],
    ]);
    const d = chain([node('check', 100, 100), node('retry', 400, 100)]);
    expect(graphHighlight(visits, d, 'root').steps.get(1)).toEqual([2, 3]);
  });
});

import { describe, expect, it } from 'vitest';
import {
  INPUT_GAP,
  INPUT_W,
  NODE_HEIGHT,
  NODE_WIDTH,
  positionOf,
} from '../../../../renderer/src/pages/rule-chains/chain-model.ts';
import {
  graphBounds,
  LABEL_H,
  layoutArrows,
} from '../../../../renderer/src/pages/rule-chains/graph-layout.ts';
import { chain, node } from './chain-fixtures.ts';

const measure = (text: string) => text.length * 7;
type Rect = { x: number; y: number; w: number; h: number };
const hit = (a: Rect, b: Rect) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

describe('arrows and their labels', () => {
  it('connections between the same two nodes share one arrow and one label', () => {
    const d = chain(
      [node('switch', 100, 100), node('log', 500, 100)],
      [
        { fromIndex: 0, toIndex: 1, type: 'Other' },
        { fromIndex: 0, toIndex: 1, type: 'Post telemetry' },
      ],
    );
    const arrows = layoutArrows(d, measure);
    expect(arrows).toHaveLength(1);
    expect(arrows[0]!.label).toBe('Other / Post telemetry');
    // the label is as wide as its text, with padding: never cut off
    expect(arrows[0]!.w).toBeGreaterThanOrEqual(measure('Other / Post telemetry'));
  });

  it('a connection to a node that is not there is not drawn', () => {
    const d = chain([node('A', 100, 100)], [{ fromIndex: 0, toIndex: 3, type: 'Success' }]);
    expect(layoutArrows(d, measure)).toEqual([]);
  });

  it('a connection past another node bends around it instead of passing behind it', () => {
    const d = chain(
      [node('A', 100, 100), node('B', 400, 100), node('C', 700, 100)],
      [{ fromIndex: 0, toIndex: 2, type: 'False' }],
    );
    const [arrow] = layoutArrows(d, measure);
    const control = /C([\d.-]+),([\d.-]+)/.exec(arrow!.d)!;
    expect(Number(control[2])).not.toBe(100 + NODE_HEIGHT / 2);
  });

  it("a switch's labels cover no node, no other label and not the Input marker", () => {
    const targets = [
      'Post attributes',
      'Post telemetry',
      'RPC Request from Device',
      'Other',
      'RPC Request to Device',
    ];
    const d = chain(
      [node('switch', 100, 200), ...targets.map((t, i) => node(t, 560, 40 + i * 90))],
      targets.map((t, i) => ({ fromIndex: 0, toIndex: i + 1, type: t })),
    );
    const arrows = layoutArrows(d, measure);
    const boxes = arrows.map((a) => ({ x: a.lx - a.w / 2, y: a.ly - LABEL_H / 2, w: a.w, h: LABEL_H }));
    const nodes = d.nodes.map((n, i) => ({ ...positionOf(n, i), w: NODE_WIDTH, h: NODE_HEIGHT }));
    const input = { x: 100 - INPUT_W - INPUT_GAP, y: 200, w: INPUT_W, h: NODE_HEIGHT };
    boxes.forEach((b, i) => {
      for (const n of nodes) expect(hit(b, n)).toBe(false);
      expect(hit(b, input)).toBe(false);
      boxes.slice(i + 1).forEach((o) => expect(hit(b, o)).toBe(false));
    });
  });
});

const under = (p: { x: number; y: number }, b: Rect) =>
  p.x > b.x && p.x < b.x + b.w && p.y > b.y && p.y < b.y + b.h;

describe('a connection back to a node on its left', () => {
  it('goes round its own two nodes instead of under them', () => {
    const d = chain(
      [node('Script Switch', 100, 100), node('Clear Alarm', 380, 100)],
      [
        { fromIndex: 0, toIndex: 1, type: 'reset' },
        { fromIndex: 1, toIndex: 0, type: 'Cleared' },
      ],
    );
    const back = layoutArrows(d, measure).find((a) => a.from === 1)!;
    const boxes = d.nodes.map((n, i) => ({ ...positionOf(n, i), w: NODE_WIDTH, h: NODE_HEIGHT }));
    for (const p of back.samples) for (const b of boxes) expect(under(p, b), JSON.stringify(p)).toBe(false);
  });

  it('is drawn inside the graph area, label included', () => {
    const d = chain(
      [node('A', 100, 100), node('B', 700, 100)],
      [{ fromIndex: 1, toIndex: 0, type: 'Loop back' }],
    );
    const arrows = layoutArrows(d, measure);
    const area = graphBounds(d, arrows);
    for (const p of arrows[0]!.samples) expect(under(p, area), JSON.stringify(p)).toBe(true);
    const a = arrows[0]!;
    expect(a.lx - a.w / 2).toBeGreaterThan(area.x);
    expect(a.lx + a.w / 2).toBeLessThan(area.x + area.w);
  });

  it('runs round every node between its ends, not across the graph', () => {
    // a row of four, and a connection from the last back to the first
    const d = chain(
      [node('A', 100, 100), node('B', 360, 60), node('C', 620, 140), node('D', 880, 100)],
      [{ fromIndex: 3, toIndex: 0, type: 'Failure' }],
    );
    const [back] = layoutArrows(d, measure);
    const boxes = d.nodes.map((n, i) => ({ ...positionOf(n, i), w: NODE_WIDTH, h: NODE_HEIGHT }));
    for (const p of back!.samples) for (const b of boxes) expect(under(p, b), JSON.stringify(p)).toBe(false);
    // its long run is above the highest node or below the lowest one
    const between = back!.samples.filter((p) => p.x > 300 && p.x < 860);
    const top = Math.min(...boxes.map((b) => b.y));
    const bottom = Math.max(...boxes.map((b) => b.y + b.h));
    expect(between.every((p) => p.y < top) || between.every((p) => p.y > bottom)).toBe(true);
    // and its label sits on that run
    expect(back!.ly < top || back!.ly > bottom).toBe(true);
  });
});

describe('each label on its own connection', () => {
  it("in ThingsBoard's root chain with a node added after Save Timeseries, every label is nearest its own arrow", () => {
    const d = chain(
      [
        node('Device Profile Node', 120, 260),
        node('Message Type Switch', 400, 260),
        node('Save Attributes', 720, 60),
        node('Save Timeseries', 720, 160),
        node('Log RPC from Device', 720, 260),
        node('Log Other', 720, 360),
        node('RPC Call Request', 720, 460),
        node('Push to edge', 1000, 160),
      ],
      [
        { fromIndex: 0, toIndex: 1, type: 'Success' },
        { fromIndex: 1, toIndex: 2, type: 'Post attributes' },
        { fromIndex: 1, toIndex: 3, type: 'Post telemetry' },
        { fromIndex: 1, toIndex: 4, type: 'RPC Request from Device' },
        { fromIndex: 1, toIndex: 5, type: 'Other' },
        { fromIndex: 1, toIndex: 6, type: 'RPC Request to Device' },
        { fromIndex: 3, toIndex: 7, type: 'Success' },
        { fromIndex: 7, toIndex: 1, type: 'Failure' },
      ],
    );
    const arrows = layoutArrows(d, measure);
    const distance = (p: { x: number; y: number }, samples: { x: number; y: number }[]) =>
      Math.min(...samples.map((q) => Math.hypot(p.x - q.x, p.y - q.y)));
    for (const a of arrows) {
      const own = distance({ x: a.lx, y: a.ly }, a.samples);
      expect(own, a.label).toBeLessThan(8);
      for (const other of arrows)
        if (other !== a)
          expect(
            distance({ x: a.lx, y: a.ly }, other.samples),
            `${a.label} vs ${other.label}`,
          ).toBeGreaterThan(own);
    }
  });
});

describe('the graph area', () => {
  it('holds every node and the Input marker, with a margin', () => {
    const d = chain([node('first', 300, 100), node('far', 1400, 700)]);
    const b = graphBounds(d);
    expect(b.x).toBeLessThan(300 - INPUT_W - INPUT_GAP);
    expect(b.y).toBeLessThan(100);
    expect(b.x + b.w).toBeGreaterThan(1400 + NODE_WIDTH);
    expect(b.y + b.h).toBeGreaterThan(700 + NODE_HEIGHT);
  });

  it('an empty chain still has room to drop nodes in', () => {
    expect(graphBounds(chain([]))).toMatchObject({ w: 900, h: 360 });
  });
});

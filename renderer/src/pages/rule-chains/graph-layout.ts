/**
 * Where the graph draws its arrows and their labels: each connection a curve from the source's output port
 * to the target's input port, connections between the same two nodes sharing one curve and one label, and
 * each label put on its own curve where it covers no node, no other label and no other curve (else where
 * it covers least); connections back to the left run round the nodes.
 */
import { INPUT_GAP, INPUT_W, NODE_HEIGHT, NODE_WIDTH, positionOf, type ChainDraft } from './chain-model.ts';

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A message's way through this chain, shown on the graph ("follow this message"). */
export interface GraphHighlight {
  /** node index → the steps (1-based) of the trace at that node */
  steps: Map<number, number[]>;
  /** "from->to" of the connections the message took */
  arrows: Set<string>;
}

export interface ArrowShape {
  key: string;
  from: number;
  to: number;
  types: string[];
  d: string;
  /** points along the path */
  samples: { x: number; y: number }[];
  label: string;
  /** the label's centre and width */
  lx: number;
  ly: number;
  w: number;
  /** what the curve and its label cover */
  extent: Box;
}

const PAD = 40;
export const LABEL_H = 20;

/** A point of the cubic Bézier at t. */
function bezier(p0: number, p1: number, p2: number, p3: number, t: number): number {
  const u = 1 - t;
  return u * u * u * p0 + 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t * p3;
}

/** The area the graph covers, with room for the Input marker, the arrows given and a margin. */
export function graphBounds(draft: ChainDraft, arrows: ArrowShape[] = []): Box {
  const points = draft.nodes.map(positionOf);
  if (points.length === 0) return { x: 0, y: 0, w: 900, h: 360 };
  const extents = arrows.map((a) => a.extent);
  let minX = Math.min(...points.map((p) => p.x), ...extents.map((e) => e.x));
  const minY = Math.min(...points.map((p) => p.y), ...extents.map((e) => e.y));
  const maxX = Math.max(...points.map((p) => p.x + NODE_WIDTH), ...extents.map((e) => e.x + e.w));
  const maxY = Math.max(...points.map((p) => p.y + NODE_HEIGHT), ...extents.map((e) => e.y + e.h));
  const first = draft.firstNodeIndex !== null ? points[draft.firstNodeIndex] : undefined;
  if (first) minX = Math.min(minX, first.x - INPUT_W - INPUT_GAP);
  const x = minX - PAD;
  const y = minY - PAD - 30;
  return { x, y, w: Math.max(900, maxX + PAD - x), h: Math.max(300, maxY + PAD - y) };
}

interface Curve {
  d: string;
  /** points along the curve, for the labels of other curves to keep off */
  samples: { x: number; y: number }[];
  /** where its own label may go, best first */
  spots: { x: number; y: number }[];
}

const intersects = (a: Box, b: Box) =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
const inside = (p: { x: number; y: number }, b: Box) =>
  p.x > b.x && p.x < b.x + b.w && p.y > b.y && p.y < b.y + b.h;

/** How far a curve bends up or down to pass the nodes between its ends, tried in this order. */
const BENDS = [0, -90, 90, -150, 150, -220, 220];

/** Points every ~8 px along a polyline, for labels to keep off and tests to follow. */
function along(points: { x: number; y: number }[]): { x: number; y: number }[] {
  const out = [points[0]!];
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!;
    const b = points[i]!;
    const n = Math.max(1, Math.ceil(Math.hypot(b.x - a.x, b.y - a.y) / 8));
    for (let k = 1; k <= n; k++) out.push({ x: a.x + ((b.x - a.x) * k) / n, y: a.y + ((b.y - a.y) * k) / n });
  }
  return out;
}

/** Where a back edge runs: above or below the nodes between its ends, in its own lane. */
interface Lanes {
  above: number;
  below: number;
}

const LANE_GAP = 26;
const LANE_STEP = 16;
const CORNER = 12;

/**
 * A connection back to a node on the left (or straight above or below): out of the source to the right,
 * along a lane above or below every node between the two ends (whichever is the shorter way round),
 * and into the target from the left, with rounded corners: it never crosses the graph.
 */
function backCurve(
  s: { x: number; y: number },
  t: { x: number; y: number },
  obstacles: Box[],
  lanes: Lanes,
): Curve {
  const x0 = s.x + NODE_WIDTH + 6;
  const y0 = s.y + NODE_HEIGHT / 2;
  const x3 = t.x - 6;
  const y3 = t.y + NODE_HEIGHT / 2;
  const out = x0 + 24;
  const into = x3 - 24;
  const between = obstacles.filter((o) => o.x < out && o.x + o.w > into);
  const top = Math.min(s.y, t.y, ...between.map((o) => o.y));
  const bottom = Math.max(s.y + NODE_HEIGHT, t.y + NODE_HEIGHT, ...between.map((o) => o.y + o.h));
  const up = top - LANE_GAP - lanes.above * LANE_STEP;
  const down = bottom + LANE_GAP + lanes.below * LANE_STEP;
  const above = y0 - up + (y3 - up) <= down - y0 + (down - y3);
  if (above) lanes.above++;
  else lanes.below++;
  const lane = above ? up : down;
  const v = above ? -1 : 1;
  const r = CORNER;
  const d = [
    `M${x0},${y0}`,
    `L${out - r},${y0} Q${out},${y0} ${out},${y0 + v * r}`,
    `L${out},${lane - v * r} Q${out},${lane} ${out - r},${lane}`,
    `L${into + r},${lane} Q${into},${lane} ${into},${lane - v * r}`,
    `L${into},${y3 + v * r} Q${into},${y3} ${into + r},${y3}`,
    `L${x3 - 2},${y3}`,
  ].join(' ');
  const corners = [
    { x: x0, y: y0 },
    { x: out, y: y0 },
    { x: out, y: lane },
    { x: into, y: lane },
    { x: into, y: y3 },
    { x: x3, y: y3 },
  ];
  const mid = (out + into) / 2;
  const half = (out - into) / 2;
  return {
    d,
    samples: along(corners),
    spots: [0, -0.3, 0.3, -0.6, 0.6].map((k) => ({ x: mid + k * half, y: lane })),
  };
}

/**
 * The curve of a connection, bent up or down as little as it takes to pass behind no node (else the least
 * crowded bend): a line under a node would read as going through it. A connection back to a node on the
 * left runs round the nodes instead (backCurve).
 */
function curve(
  s: { x: number; y: number },
  t: { x: number; y: number },
  self: boolean,
  obstacles: Box[],
  lanes: Lanes,
): Curve {
  if (self) {
    const x = s.x + NODE_WIDTH - 30;
    const pts = [x, s.y, x, s.y - 50, x + 60, s.y - 50, x + 30, s.y + 6];
    const samples = Array.from({ length: 13 }, (_, i) => ({
      x: bezier(pts[0]!, pts[2]!, pts[4]!, pts[6]!, i / 12),
      y: bezier(pts[1]!, pts[3]!, pts[5]!, pts[7]!, i / 12),
    }));
    return {
      d: `M${x},${s.y} C${x},${s.y - 50} ${x + 60},${s.y - 50} ${x + 30},${s.y + 6}`,
      samples,
      spots: [{ x: x + 30, y: s.y - 50 }],
    };
  }
  const x0 = s.x + NODE_WIDTH + 6;
  const y0 = s.y + NODE_HEIGHT / 2;
  const x3 = t.x - 6;
  const y3 = t.y + NODE_HEIGHT / 2;
  if (x3 - x0 < 40) return backCurve(s, t, obstacles, lanes);
  const c = Math.max(50, Math.abs(x3 - x0) / 2);
  const x1 = x0 + c;
  const x2 = x3 - c;
  const length = Math.hypot(x3 - x0, y3 - y0) + 2 * c;
  const n = Math.max(12, Math.ceil(length / 8));
  const margin = (b: Box): Box => ({ x: b.x - 4, y: b.y - 4, w: b.w + 8, h: b.h + 8 });
  let best: { bend: number; hits: number } = { bend: 0, hits: Infinity };
  for (const bend of BENDS) {
    let hits = 0;
    for (let i = 1; i < n; i++) {
      const p = {
        x: bezier(x0, x1, x2, x3, i / n),
        y: bezier(y0, y0 + bend, y3 + bend, y3, i / n),
      };
      for (const o of obstacles) if (inside(p, margin(o))) hits++;
    }
    if (hits < best.hits) best = { bend, hits };
    if (hits === 0) break;
  }
  const y1 = y0 + best.bend;
  const y2 = y3 + best.bend;
  const at = (k: number) => ({ x: bezier(x0, x1, x2, x3, k), y: bezier(y0, y1, y2, y3, k) });
  // every spot is on the curve itself: a label off its curve reads as another connection's
  const order = [0.5, 0.44, 0.56, 0.38, 0.62, 0.32, 0.68, 0.26, 0.74, 0.2, 0.8, 0.15, 0.85];
  return {
    d: `M${x0},${y0} C${x1},${y1} ${x2},${y2} ${x3 - 2},${y3}`,
    samples: Array.from({ length: n + 1 }, (_, i) => at(i / n)),
    spots: order.map(at),
  };
}

/** The arrows of a chain and where their labels go; `measure` gives a label's width in px. */
export function layoutArrows(draft: ChainDraft, measure: (text: string) => number): ArrowShape[] {
  const grouped = new Map<string, { from: number; to: number; types: string[] }>();
  for (const c of draft.connections) {
    if (!draft.nodes[c.fromIndex] || !draft.nodes[c.toIndex]) continue;
    const key = `${c.fromIndex}->${c.toIndex}`;
    const g = grouped.get(key) ?? { from: c.fromIndex, to: c.toIndex, types: [] };
    if (!g.types.includes(c.type)) g.types.push(c.type);
    grouped.set(key, g);
  }
  const nodeBoxes: Box[] = draft.nodes.map((n, i) => ({
    ...positionOf(n, i),
    w: NODE_WIDTH,
    h: NODE_HEIGHT,
  }));
  const lanes: Lanes = { above: 0, below: 0 };
  const arrows = [...grouped.entries()].map(([key, g]) => ({
    key,
    ...g,
    curve: curve(
      nodeBoxes[g.from]!,
      nodeBoxes[g.to]!,
      g.from === g.to,
      // a forward curve never enters its own nodes (it leaves right of one and arrives left of the other)
      nodeBoxes,
      lanes,
    ),
  }));
  const taken: Box[] = [...nodeBoxes];
  const first = draft.firstNodeIndex !== null ? draft.nodes[draft.firstNodeIndex] : undefined;
  if (first) {
    const p = positionOf(first, draft.firstNodeIndex!);
    taken.push({ x: p.x - INPUT_W - INPUT_GAP, y: p.y + NODE_HEIGHT / 2 - 16, w: INPUT_W, h: 32 });
  }
  return arrows.map((a) => {
    const label = a.types.join(' / ');
    const w = Math.ceil(measure(label)) + 14;
    const boxAt = (p: { x: number; y: number }): Box => ({
      x: p.x - w / 2,
      y: p.y - LABEL_H / 2,
      w,
      h: LABEL_H,
    });
    const cost = (b: Box) => {
      let n = 0;
      for (const t of taken) if (intersects(b, t)) n += 100;
      for (const other of arrows)
        if (other !== a) for (const p of other.curve.samples) if (inside(p, b)) n += 1;
      return n;
    };
    const spots = a.curve.spots;
    let best = spots[0]!;
    let bestCost = Infinity;
    for (const p of spots) {
      const c = cost(boxAt(p));
      if (c < bestCost) {
        best = p;
        bestCost = c;
      }
      if (c === 0) break;
    }
    const labelBox = boxAt(best);
    taken.push(labelBox);
    const xs = [...a.curve.samples.map((p) => p.x), labelBox.x, labelBox.x + w];
    const ys = [...a.curve.samples.map((p) => p.y), labelBox.y, labelBox.y + LABEL_H];
    const extent = {
      x: Math.min(...xs),
      y: Math.min(...ys),
      w: Math.max(...xs) - Math.min(...xs),
      h: Math.max(...ys) - Math.min(...ys),
    };
    return {
      key: a.key,
      from: a.from,
      to: a.to,
      types: a.types,
      d: a.curve.d,
      samples: a.curve.samples,
      label,
      lx: best.x,
      ly: best.y,
      w,
      extent,
    };
  });
}

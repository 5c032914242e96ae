import { ActionIcon, Group, Tooltip, useComputedColorScheme, useMantineTheme } from '@mantine/core';
import { useMemo, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { NODE_TYPES } from '../../../../shared/rule-engine.ts';
import type { RuleNodeType } from '../../api/client.ts';
import { NODE_HEIGHT, NODE_WIDTH, positionOf, shortType, type ChainDraft } from './chain-model.ts';
import { fitText, textWidth } from './fit-text.ts';

const TYPE_COLORS: Record<string, string> = {
  [NODE_TYPES.msgTypeSwitch]: 'yellow',
  [NODE_TYPES.saveTimeseries]: 'blue',
  [NODE_TYPES.saveAttributes]: 'blue',
  [NODE_TYPES.log]: 'gray',
  [NODE_TYPES.rpcCallRequest]: 'orange',
  [NODE_TYPES.pushToEdge]: 'grape',
};

const PAD = 40;
const LABEL_FONT = 12;
/** room for a node's name: the node less its colour bar and the problem mark */
const NAME_WIDTH = NODE_WIDTH - 16 - 22;
const INPUT_W = 84;
const INPUT_GAP = 56;

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

function useGraphColors() {
  const theme = useMantineTheme();
  const dark = useComputedColorScheme('light') === 'dark';
  return {
    dark,
    text: dark ? theme.colors.dark[0]! : theme.colors.gray[9]!,
    dimmed: dark ? theme.colors.dark[2]! : theme.colors.gray[6]!,
    edge: dark ? theme.colors.dark[2]! : theme.colors.gray[5]!,
    labelBg: dark ? theme.colors.dark[7]! : theme.white,
    nodeBg: dark ? theme.colors.dark[6]! : theme.white,
    selected: theme.colors.blue[dark ? 4 : 6]!,
    error: theme.colors.red[dark ? 5 : 7]!,
    accent: (type: string) => theme.colors[TYPE_COLORS[type] ?? 'cyan']![dark ? 5 : 6]!,
    tint: (type: string) => theme.colors[TYPE_COLORS[type] ?? 'cyan']![dark ? 9 : 0]!,
  };
}

/** A point of the cubic Bézier at t. */
function bezier(p0: number, p1: number, p2: number, p3: number, t: number): number {
  const u = 1 - t;
  return u * u * u * p0 + 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t * p3;
}

function bounds(draft: ChainDraft): Box {
  const points = draft.nodes.map(positionOf);
  if (points.length === 0) return { x: 0, y: 0, w: 900, h: 360 };
  let minX = Math.min(...points.map((p) => p.x));
  const minY = Math.min(...points.map((p) => p.y));
  const maxX = Math.max(...points.map((p) => p.x)) + NODE_WIDTH;
  const maxY = Math.max(...points.map((p) => p.y)) + NODE_HEIGHT;
  const first = draft.firstNodeIndex !== null ? points[draft.firstNodeIndex] : undefined;
  if (first) minX = Math.min(minX, first.x - INPUT_W - INPUT_GAP);
  const x = minX - PAD;
  const y = minY - PAD;
  return { x, y, w: Math.max(900, maxX + PAD - x), h: Math.max(300, maxY + PAD - y) };
}

/**
 * The chain as a graph: nodes as boxes at their layout positions (drag them, or move the focused one with
 * the arrow keys), connections as arrows labelled with their relation types.
 */
export function ChainGraph({
  draft,
  types,
  selected,
  problemNodes,
  onSelect,
  onMove,
  onRemove,
}: {
  draft: ChainDraft;
  types: RuleNodeType[];
  selected: number | null;
  problemNodes: Set<number>;
  onSelect: (index: number | null) => void;
  onMove: (index: number, x: number, y: number) => void;
  onRemove: (index: number) => void;
}) {
  const colors = useGraphColors();
  const svgRef = useRef<SVGSVGElement>(null);
  const drag = useRef<{
    index: number;
    dx: number;
    dy: number;
    x0: number;
    y0: number;
    moved: boolean;
  } | null>(null);
  // the canvas keeps its size while a node is dragged (it would shift under the pointer otherwise)
  const [frozen, setFrozen] = useState<Box | null>(null);
  const box = frozen ?? bounds(draft);
  // null: fit the width of the card; else a scale, scrolled sideways when wider than the card
  const [zoom, setZoom] = useState<number | null>(null);
  const zoomBy = (factor: number) => {
    const current = zoom ?? (svgRef.current ? svgRef.current.clientWidth / box.w : 1);
    setZoom(Math.min(2, Math.max(0.4, Math.round(current * factor * 10) / 10)));
  };
  const labels = useMemo(() => new Map(types.map((t) => [t.type, t.label])), [types]);

  const toSvg = (e: PointerEvent) => {
    const ctm = svgRef.current?.getScreenCTM();
    if (!ctm) return { x: 0, y: 0 };
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(ctm.inverse());
    return { x: p.x, y: p.y };
  };

  const onPointerDown = (e: PointerEvent<SVGGElement>, index: number) => {
    if (e.button !== 0) return;
    e.currentTarget.setPointerCapture(e.pointerId);
    const p = toSvg(e);
    const pos = positionOf(draft.nodes[index]!, index);
    drag.current = { index, dx: p.x - pos.x, dy: p.y - pos.y, x0: e.clientX, y0: e.clientY, moved: false };
    setFrozen(bounds(draft));
    onSelect(index);
  };
  const onPointerMove = (e: PointerEvent<SVGGElement>) => {
    const d = drag.current;
    if (!d) return;
    if (!d.moved && Math.hypot(e.clientX - d.x0, e.clientY - d.y0) < 3) return;
    d.moved = true;
    const p = toSvg(e);
    onMove(d.index, p.x - d.dx, p.y - d.dy);
  };
  const onPointerUp = () => {
    drag.current = null;
    setFrozen(null);
  };

  const onKeyDown = (e: KeyboardEvent<SVGGElement>, index: number) => {
    const pos = positionOf(draft.nodes[index]!, index);
    const step = e.shiftKey ? 50 : 10;
    const moves: Record<string, [number, number]> = {
      ArrowLeft: [-step, 0],
      ArrowRight: [step, 0],
      ArrowUp: [0, -step],
      ArrowDown: [0, step],
    };
    const move = moves[e.key];
    if (move) {
      e.preventDefault();
      onMove(index, pos.x + move[0], pos.y + move[1]);
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      onSelect(selected === index ? null : index);
    } else if (e.key === 'Delete' || e.key === 'Backspace') {
      e.preventDefault();
      onRemove(index);
    } else if (e.key === 'Escape') {
      onSelect(null);
    }
  };

  // connections between the same two nodes share one arrow and one label
  const arrows = useMemo(() => {
    const grouped = new Map<string, { from: number; to: number; types: string[] }>();
    for (const c of draft.connections) {
      const key = `${c.fromIndex}->${c.toIndex}`;
      const g = grouped.get(key) ?? { from: c.fromIndex, to: c.toIndex, types: [] };
      g.types.push(c.type);
      grouped.set(key, g);
    }
    return [...grouped.values()].filter((g) => draft.nodes[g.from] && draft.nodes[g.to]);
  }, [draft.connections, draft.nodes]);

  const arrowShapes = useMemo(() => {
    // each label goes where it overlaps no node and no label placed before it: along its curve first
    const taken: Box[] = draft.nodes.map((n, i) => {
      const p = positionOf(n, i);
      return { x: p.x, y: p.y, w: NODE_WIDTH, h: NODE_HEIGHT };
    });
    const overlaps = (b: Box) =>
      taken.some((t) => b.x < t.x + t.w && t.x < b.x + b.w && b.y < t.y + t.h && t.y < b.y + b.h);
    return arrows.map((a) => {
      const s = positionOf(draft.nodes[a.from]!, a.from);
      const t = positionOf(draft.nodes[a.to]!, a.to);
      const label = a.types.join(' / ');
      const w = Math.ceil(textWidth(label, LABEL_FONT)) + 14;
      let d: string;
      let spots: { x: number; y: number }[];
      if (a.from === a.to) {
        const x = s.x + NODE_WIDTH - 30;
        d = `M${x},${s.y} C${x},${s.y - 50} ${x + 60},${s.y - 50} ${x + 30},${s.y + 6}`;
        spots = [{ x: x + 30, y: s.y - 40 }];
      } else {
        const x0 = s.x + NODE_WIDTH;
        const y0 = s.y + NODE_HEIGHT / 2;
        const x3 = t.x;
        const y3 = t.y + NODE_HEIGHT / 2;
        const c = Math.max(40, Math.abs(x3 - x0) / 2);
        const x1 = x0 + c;
        const x2 = x3 - c;
        d = `M${x0},${y0} C${x1},${y0} ${x2},${y3} ${x3 - 2},${y3}`;
        spots = [0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78].map((k) => ({
          x: bezier(x0, x1, x2, x3, k),
          y: bezier(y0, y0, y3, y3, k),
        }));
      }
      const boxAt = (p: { x: number; y: number }) => ({ x: p.x - w / 2, y: p.y - 11, w, h: 22 });
      let spot = spots.find((p) => !overlaps(boxAt(p)));
      // nowhere free on the curve: below its middle, clear of the others
      for (let dy = 22; !spot && dy < 400; dy += 22) {
        const p = { x: spots[0]!.x, y: spots[0]!.y + dy };
        if (!overlaps(boxAt(p))) spot = p;
      }
      spot ??= spots[0]!;
      taken.push(boxAt(spot));
      return { key: `${a.from}->${a.to}`, d, label, lx: spot.x, ly: spot.y, w };
    });
  }, [arrows, draft.nodes]);

  const first = draft.firstNodeIndex !== null ? draft.nodes[draft.firstNodeIndex] : undefined;
  const firstPos = first ? positionOf(first, draft.firstNodeIndex!) : undefined;

  return (
    <div style={{ position: 'relative' }}>
      <Group gap={4} style={{ position: 'absolute', top: 8, right: 8, zIndex: 1 }}>
        <Tooltip label="Zoom out">
          <ActionIcon variant="default" size="sm" onClick={() => zoomBy(1 / 1.25)} aria-label="Zoom out">
            −
          </ActionIcon>
        </Tooltip>
        <Tooltip label="Fit to width">
          <ActionIcon
            variant={zoom === null ? 'light' : 'default'}
            size="sm"
            onClick={() => setZoom(null)}
            aria-label="Fit to width"
            aria-pressed={zoom === null}
          >
            ⤢
          </ActionIcon>
        </Tooltip>
        <Tooltip label="Zoom in">
          <ActionIcon variant="default" size="sm" onClick={() => zoomBy(1.25)} aria-label="Zoom in">
            +
          </ActionIcon>
        </Tooltip>
      </Group>
      <div style={{ overflowX: 'auto' }}>
        <svg
          ref={svgRef}
          viewBox={`${box.x} ${box.y} ${box.w} ${box.h}`}
          style={{
            display: 'block',
            width: zoom === null ? '100%' : Math.round(box.w * zoom),
            maxWidth: zoom === null ? Math.round(box.w * 1.25) : undefined,
            touchAction: 'none',
            userSelect: 'none',
          }}
          role="group"
          aria-label="Rule chain graph: tab to a node, Enter selects it, arrow keys move it, Delete removes it"
          data-testid="rule-chain-graph"
          onPointerDown={(e) => {
            if (e.target === e.currentTarget) onSelect(null);
          }}
        >
          <style>{`
        .rc-node { cursor: grab; outline: none; }
        .rc-node:active { cursor: grabbing; }
        .rc-node .rc-focus { display: none; }
        .rc-node:focus-visible .rc-focus { display: inline; }
      `}</style>
          <defs>
            <marker
              id="rc-arrow"
              viewBox="0 0 10 10"
              refX="9"
              refY="5"
              markerWidth="7"
              markerHeight="7"
              orient="auto"
            >
              <path d="M0,0 L10,5 L0,10 z" style={{ fill: colors.edge }} />
            </marker>
          </defs>
          <rect
            x={box.x}
            y={box.y}
            width={box.w}
            height={box.h}
            style={{ fill: 'transparent' }}
            onPointerDown={() => onSelect(null)}
          />

          {firstPos && (
            <g aria-hidden="true">
              <rect
                x={firstPos.x - INPUT_W - INPUT_GAP}
                y={firstPos.y + NODE_HEIGHT / 2 - 16}
                width={INPUT_W}
                height={32}
                rx={16}
                style={{ fill: colors.tint('input'), stroke: colors.edge }}
              />
              <text
                x={firstPos.x - INPUT_GAP - INPUT_W / 2}
                y={firstPos.y + NODE_HEIGHT / 2 + 4}
                textAnchor="middle"
                fontSize={13}
                style={{ fill: colors.text }}
              >
                Input
              </text>
              <path
                d={`M${firstPos.x - INPUT_GAP},${firstPos.y + NODE_HEIGHT / 2} L${firstPos.x - 2},${firstPos.y + NODE_HEIGHT / 2}`}
                markerEnd="url(#rc-arrow)"
                style={{ stroke: colors.edge, strokeWidth: 1.5, fill: 'none' }}
              />
            </g>
          )}

          {/* lines first, then their labels, so no line is drawn over another's label */}
          {arrowShapes.map((a) => (
            <path
              key={a.key}
              d={a.d}
              markerEnd="url(#rc-arrow)"
              data-testid="rule-chain-arrow"
              data-relation={a.label}
              style={{ stroke: colors.edge, strokeWidth: 1.5, fill: 'none' }}
            />
          ))}
          {arrowShapes.map((a) => (
            <g key={a.key} aria-hidden="true">
              <rect
                data-label-box
                x={a.lx - a.w / 2}
                y={a.ly - 10}
                width={a.w}
                height={20}
                rx={4}
                style={{ fill: colors.labelBg, stroke: colors.edge, strokeWidth: 0.5 }}
              />
              <text
                x={a.lx}
                y={a.ly + 4}
                textAnchor="middle"
                fontSize={LABEL_FONT}
                data-max-width={a.w - 4}
                style={{ fill: colors.dimmed }}
              >
                {a.label}
              </text>
            </g>
          ))}

          {draft.nodes.map((node, i) => {
            const p = positionOf(node, i);
            const isSelected = selected === i;
            const hasProblem = problemNodes.has(i);
            const typeLabel = labels.get(node.type) ?? `Unsupported: ${shortType(node.type)}`;
            const name = fitText(node.name, NAME_WIDTH, [14, 13, 12], 600);
            const squeeze =
              name.lines.length === 1 && textWidth(name.lines[0]!, name.fontSize, 600) > NAME_WIDTH;
            const nameY = name.lines.length === 1 ? [21] : [16, 29];
            return (
              <g
                key={node.id?.id ?? `new-${i}`}
                className="rc-node"
                transform={`translate(${p.x},${p.y})`}
                tabIndex={0}
                role="button"
                aria-pressed={isSelected}
                aria-label={`${node.name} ${typeLabel}${node.debugMode ? ' · debug' : ''}${hasProblem ? ', has a problem' : ''}`}
                data-testid="rule-node"
                data-name={node.name}
                data-index={i}
                data-selected={isSelected}
                data-problem={hasProblem}
                onPointerDown={(e) => onPointerDown(e, i)}
                onPointerMove={onPointerMove}
                onPointerUp={onPointerUp}
                onPointerCancel={onPointerUp}
                onKeyDown={(e) => onKeyDown(e, i)}
              >
                <title>{`${node.name}\n${node.type}`}</title>
                <rect
                  className="rc-focus"
                  x={-5}
                  y={-5}
                  width={NODE_WIDTH + 10}
                  height={NODE_HEIGHT + 10}
                  rx={10}
                  style={{ fill: 'none', stroke: colors.selected, strokeWidth: 2, strokeDasharray: '4 3' }}
                />
                <rect
                  width={NODE_WIDTH}
                  height={NODE_HEIGHT}
                  rx={7}
                  style={{
                    fill: colors.nodeBg,
                    stroke: hasProblem ? colors.error : isSelected ? colors.selected : colors.edge,
                    strokeWidth: isSelected || hasProblem ? 2.5 : 1,
                  }}
                />
                <rect width={6} height={NODE_HEIGHT} rx={3} style={{ fill: colors.accent(node.type) }} />
                {name.lines.map((line, l) => (
                  <text
                    key={l}
                    x={16}
                    y={nameY[l]}
                    fontSize={name.fontSize}
                    fontWeight={600}
                    data-max-width={NAME_WIDTH}
                    textLength={squeeze ? NAME_WIDTH : undefined}
                    lengthAdjust={squeeze ? 'spacingAndGlyphs' : undefined}
                    style={{ fill: colors.text }}
                  >
                    {/* a space after each line: read together, the lines and the type are words apart */}
                    {`${line} `}
                  </text>
                ))}
                <text
                  x={16}
                  y={name.lines.length === 1 ? 41 : 44}
                  fontSize={12}
                  style={{ fill: colors.dimmed }}
                >
                  {typeLabel}
                  {node.debugMode ? ' · debug' : ''}
                </text>
                {hasProblem && (
                  <text
                    aria-hidden="true"
                    x={NODE_WIDTH - 16}
                    y={21}
                    fontSize={14}
                    fontWeight={700}
                    style={{ fill: colors.error }}
                  >
                    !
                  </text>
                )}
              </g>
            );
          })}
        </svg>
      </div>
    </div>
  );
}

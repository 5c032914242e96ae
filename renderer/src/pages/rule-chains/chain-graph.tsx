import { ActionIcon, Group, Text, Tooltip, useComputedColorScheme, useMantineTheme } from '@mantine/core';
import { useElementSize } from '@mantine/hooks';
import {
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
  type PointerEvent,
} from 'react';
import { NODE_TYPES } from '../../../../shared/rule-engine.ts';
import type { RuleNodeType } from '../../api/client.ts';
import {
  INPUT_GAP,
  INPUT_W,
  NODE_HEIGHT,
  NODE_WIDTH,
  positionOf,
  shortType,
  type ChainDraft,
} from './chain-model.ts';
import { ellipsize, fitText, textWidth } from './fit-text.ts';
import { graphBounds, LABEL_H, layoutArrows, type GraphHighlight } from './graph-layout.ts';
import { debugMark, debugState } from './node-debug-state.ts';
import { fitView, panToShow, zoomAt, type View } from './graph-view.ts';

const TYPE_COLORS: Record<string, string> = {
  [NODE_TYPES.msgTypeSwitch]: 'yellow',
  [NODE_TYPES.saveTimeseries]: 'blue',
  [NODE_TYPES.saveAttributes]: 'blue',
  [NODE_TYPES.log]: 'gray',
  [NODE_TYPES.rpcCallRequest]: 'orange',
  [NODE_TYPES.pushToEdge]: 'grape',
  [NODE_TYPES.createAlarm]: 'red',
  [NODE_TYPES.clearAlarm]: 'green',
};
const GROUP_COLORS: Record<string, string> = {
  FILTER: 'yellow',
  ENRICHMENT: 'lime',
  TRANSFORMATION: 'indigo',
  ACTION: 'cyan',
  EXTERNAL: 'pink',
  FLOW: 'teal',
};

const LABEL_FONT = 12;
/** one size for every node's name (two lines when it needs them) and one for its type, at 100 % */
const NAME_FONT = 13;
const TYPE_FONT = 12;
/** room for a node's name: the node less its colour bar and the problem mark */
const NAME_WIDTH = NODE_WIDTH - 16 - 22;
const TYPE_WIDTH = NODE_WIDTH - 16 - 8;
const PORT_R = 7;
/** the canvas is never shorter than this, whatever the window */
const MIN_CANVAS_H = 320;
/** what the page keeps below the canvas: the keyboard help and the page's padding */
const BELOW_CANVAS = 56;

function useGraphColors() {
  const theme = useMantineTheme();
  const dark = useComputedColorScheme('light') === 'dark';
  const shade = (color: string, d: number, l: number) => theme.colors[color]![dark ? d : l]!;
  return {
    text: dark ? theme.colors.dark[0]! : theme.colors.gray[9]!,
    dimmed: dark ? theme.colors.dark[1]! : theme.colors.gray[7]!,
    edge: dark ? theme.colors.dark[2]! : theme.colors.gray[5]!,
    // connection labels: the body text colour on the page's own background (dimmed text on dark read poorly)
    label: dark ? theme.colors.dark[0]! : theme.colors.gray[8]!,
    labelBg: dark ? theme.colors.dark[7]! : theme.white,
    nodeBg: dark ? theme.colors.dark[6]! : theme.white,
    selected: shade('blue', 4, 6),
    error: shade('red', 5, 7),
    trace: shade('orange', 5, 7),
    traceText: dark ? theme.colors.dark[9]! : theme.white,
    accent: (color: string) => shade(color, 5, 6),
    tint: shade('cyan', 9, 0),
  };
}

/**
 * The canvas's height: the window's, less what is above the canvas and the little below it, so the graph
 * uses the page's height at any window size (never less than MIN_CANVAS_H).
 */
function useCanvasHeight(ref: { current: HTMLElement | null }): number {
  const [height, setHeight] = useState(480);
  useLayoutEffect(() => {
    const measure = () => {
      const el = ref.current;
      if (!el) return;
      const top = el.getBoundingClientRect().top + window.scrollY;
      setHeight(Math.max(MIN_CANVAS_H, Math.floor(window.innerHeight - top - BELOW_CANVAS)));
    };
    measure();
    window.addEventListener('resize', measure);
    const observer = new ResizeObserver(measure);
    observer.observe(document.body);
    return () => {
      window.removeEventListener('resize', measure);
      observer.disconnect();
    };
  }, [ref]);
  return height;
}

/**
 * The chain as a graph: nodes as boxes at their layout positions (drag them, or move the focused one with
 * the arrow keys), connections as arrows labelled with their relation types. Dragging from a node's output
 * port (the dot on its right) to another node asks for the relation of a new connection.
 */
export function ChainGraph({
  draft,
  types,
  selected,
  problemNodes,
  highlight,
  onSelect,
  onMove,
  onRemove,
  onConnect,
}: {
  draft: ChainDraft;
  types: RuleNodeType[];
  selected: number | null;
  problemNodes: Set<number>;
  highlight?: GraphHighlight;
  onSelect: (index: number | null) => void;
  onMove: (index: number, x: number, y: number) => void;
  onRemove: (index: number) => void;
  onConnect: (from: number, to: number) => void;
}) {
  const colors = useGraphColors();
  const svgRef = useRef<SVGSVGElement>(null);
  const { ref: frameRef, width: frameWidth, height: frameHeight } = useElementSize<HTMLDivElement>();
  const drag = useRef<{
    index: number;
    dx: number;
    dy: number;
    x0: number;
    y0: number;
    moved: boolean;
  } | null>(null);
  const pan = useRef<{ x0: number; y0: number; view: View; moved: boolean } | null>(null);
  const [link, setLink] = useState<{ from: number; x: number; y: number } | null>(null);
  const arrows = useMemo(() => layoutArrows(draft, (label) => textWidth(label, LABEL_FONT)), [draft]);
  const box = graphBounds(draft, arrows);
  const frame = { w: frameWidth, h: frameHeight };
  // null: the graph fits the canvas (and keeps fitting it as it changes); else where the user put it
  const [manual, setManual] = useState<View | null>(null);
  // while a node is dragged or a connection drawn, the view holds still under the pointer
  const [frozen, setFrozen] = useState<View | null>(null);
  const view = frozen ?? manual ?? fitView(box, frame);
  const viewRef = useRef(view);
  viewRef.current = view;
  const zoomBy = (factor: number, at?: { x: number; y: number }) =>
    setManual(zoomAt(viewRef.current, frame, factor, at));
  const canvasRef = useRef<HTMLDivElement>(null);
  const height = useCanvasHeight(canvasRef);
  const typeOf = useMemo(() => new Map(types.map((t) => [t.type, t])), [types]);

  const toSvg = (e: PointerEvent) => {
    const ctm = svgRef.current?.getScreenCTM();
    if (!ctm) return { x: 0, y: 0 };
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(ctm.inverse());
    return { x: p.x, y: p.y };
  };
  /** the node under a point (with a margin), the topmost first */
  const nodeAt = (p: { x: number; y: number }) => {
    for (let i = draft.nodes.length - 1; i >= 0; i--) {
      const n = positionOf(draft.nodes[i]!, i);
      if (p.x >= n.x - 10 && p.x <= n.x + NODE_WIDTH + 10 && p.y >= n.y - 10 && p.y <= n.y + NODE_HEIGHT + 10)
        return i;
    }
    return undefined;
  };

  // a node selected from elsewhere (just added, picked in a list) is brought into the canvas's view
  const nodeCount = draft.nodes.length;
  useEffect(() => {
    if (selected === null || drag.current || !manual) return;
    const node = draft.nodes[selected];
    if (!node) return;
    const next = panToShow(manual, frame, { ...positionOf(node, selected), w: NODE_WIDTH, h: NODE_HEIGHT });
    if (next !== manual) setManual(next);
  }, [selected, nodeCount]);

  // the wheel zooms about the pointer (a native listener: React's wheel listeners cannot stop the page scrolling)
  useEffect(() => {
    const svg = svgRef.current;
    if (!svg) return;
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const rect = svg.getBoundingClientRect();
      const factor = Math.exp(-Math.max(-100, Math.min(100, e.deltaY)) / 300);
      setManual(
        zoomAt(viewRef.current, { w: rect.width, h: rect.height }, factor, {
          x: e.clientX - rect.left,
          y: e.clientY - rect.top,
        }),
      );
    };
    svg.addEventListener('wheel', onWheel, { passive: false });
    return () => svg.removeEventListener('wheel', onWheel);
  }, []);

  const onNodePointerDown = (e: PointerEvent<SVGGElement>, index: number) => {
    if (e.button !== 0) return;
    e.currentTarget.setPointerCapture(e.pointerId);
    const p = toSvg(e);
    const pos = positionOf(draft.nodes[index]!, index);
    drag.current = { index, dx: p.x - pos.x, dy: p.y - pos.y, x0: e.clientX, y0: e.clientY, moved: false };
    setFrozen(view);
    onSelect(index);
  };
  const onNodePointerMove = (e: PointerEvent<SVGGElement>) => {
    const d = drag.current;
    if (!d) return;
    if (!d.moved && Math.hypot(e.clientX - d.x0, e.clientY - d.y0) < 3) return;
    d.moved = true;
    const p = toSvg(e);
    onMove(d.index, p.x - d.dx, p.y - d.dy);
  };
  const onNodePointerUp = () => {
    drag.current = null;
    setFrozen(null);
  };

  const onPortPointerDown = (e: PointerEvent<SVGCircleElement>, index: number) => {
    if (e.button !== 0) return;
    e.stopPropagation();
    svgRef.current?.setPointerCapture(e.pointerId);
    setFrozen(view);
    setLink({ from: index, ...toSvg(e) });
  };
  // dragging the background pans; a click on it (no move) clears the selection
  const onBackgroundPointerDown = (e: PointerEvent<SVGElement>) => {
    if (e.button !== 0) return;
    svgRef.current?.setPointerCapture(e.pointerId);
    pan.current = { x0: e.clientX, y0: e.clientY, view, moved: false };
  };
  const onSvgPointerMove = (e: PointerEvent<SVGSVGElement>) => {
    const p = pan.current;
    if (p) {
      if (!p.moved && Math.hypot(e.clientX - p.x0, e.clientY - p.y0) < 3) return;
      p.moved = true;
      setManual({
        scale: p.view.scale,
        x: p.view.x - (e.clientX - p.x0) / p.view.scale,
        y: p.view.y - (e.clientY - p.y0) / p.view.scale,
      });
      return;
    }
    if (link) setLink({ ...link, ...toSvg(e) });
  };
  const onSvgPointerUp = (e: PointerEvent<SVGSVGElement>) => {
    const p = pan.current;
    if (p) {
      pan.current = null;
      if (!p.moved) onSelect(null);
      return;
    }
    if (!link) return;
    const target = nodeAt(toSvg(e));
    setLink(null);
    setFrozen(null);
    if (target !== undefined && target !== link.from) onConnect(link.from, target);
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

  const first = draft.firstNodeIndex !== null ? draft.nodes[draft.firstNodeIndex] : undefined;
  const firstPos = first ? positionOf(first, draft.firstNodeIndex!) : undefined;
  const linkTarget = link ? nodeAt(link) : undefined;
  const linkFrom = link ? positionOf(draft.nodes[link.from]!, link.from) : undefined;
  const now = Date.now();

  return (
    <div>
      <Group justify="space-between" px="sm" py={6} wrap="nowrap" data-testid="graph-toolbar">
        <Text size="xs" c="dimmed">
          Drag a node’s right-hand dot onto another node to connect them · drag the background to pan, the
          wheel zooms.
        </Text>
        <Group gap={4} wrap="nowrap">
          <Tooltip label="Zoom out">
            <ActionIcon variant="default" size="sm" onClick={() => zoomBy(1 / 1.25)} aria-label="Zoom out">
              −
            </ActionIcon>
          </Tooltip>
          <Text size="xs" c="dimmed" w="3.2em" ta="right" data-testid="graph-zoom">
            {Math.round(view.scale * 100)} %
          </Text>
          <Tooltip label="Fit the whole chain in view">
            <ActionIcon
              variant={manual === null ? 'light' : 'default'}
              size="sm"
              onClick={() => setManual(null)}
              aria-label="Fit to the card"
              aria-pressed={manual === null}
              data-testid="graph-fit"
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
      </Group>
      <div ref={canvasRef}>
        <div
          ref={frameRef}
          style={{ height, overflow: 'hidden', position: 'relative' }}
          data-testid="graph-frame"
        >
          <svg
            ref={svgRef}
            viewBox={`${view.x} ${view.y} ${Math.max(1, frame.w) / view.scale} ${Math.max(1, frame.h) / view.scale}`}
            width="100%"
            height="100%"
            style={{
              display: 'block',
              position: 'absolute',
              inset: 0,
              touchAction: 'none',
              userSelect: 'none',
              cursor: pan.current?.moved ? 'grabbing' : 'grab',
            }}
            role="group"
            aria-label="Rule chain graph: tab to a node, Enter selects it, arrow keys move it, Delete removes it"
            data-testid="rule-chain-graph"
            data-scale={view.scale.toFixed(2)}
            data-fit={manual === null}
            onPointerMove={onSvgPointerMove}
            onPointerUp={onSvgPointerUp}
            onPointerCancel={() => {
              pan.current = null;
              setLink(null);
              setFrozen(null);
            }}
          >
            <style>{`
        .rc-node { cursor: grab; outline: none; }
        .rc-node:active { cursor: grabbing; }
        .rc-node .rc-focus { display: none; }
        .rc-node:focus-visible .rc-focus { display: inline; }
        .rc-port { cursor: crosshair; }
        .rc-port:hover { stroke-width: 3; }
      `}</style>
            <defs>
              {(
                [
                  ['rc-arrow', colors.edge],
                  ['rc-arrow-trace', colors.trace],
                ] as const
              ).map(([id, fill]) => (
                <marker
                  key={id}
                  id={id}
                  viewBox="0 0 10 10"
                  refX="9"
                  refY="5"
                  markerWidth="7"
                  markerHeight="7"
                  orient="auto"
                >
                  <path d="M0,0 L10,5 L0,10 z" style={{ fill }} />
                </marker>
              ))}
            </defs>
            <rect
              x={view.x - 4 * box.w - 4000}
              y={view.y - 4 * box.h - 4000}
              width={10 * box.w + 8000}
              height={10 * box.h + 8000}
              style={{ fill: 'transparent' }}
              data-testid="graph-background"
              onPointerDown={onBackgroundPointerDown}
            />

            {firstPos && (
              <g aria-hidden="true">
                <rect
                  x={firstPos.x - INPUT_W - INPUT_GAP}
                  y={firstPos.y + NODE_HEIGHT / 2 - 16}
                  width={INPUT_W}
                  height={32}
                  rx={16}
                  style={{ fill: colors.tint, stroke: colors.edge }}
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
                  d={`M${firstPos.x - INPUT_GAP},${firstPos.y + NODE_HEIGHT / 2} L${firstPos.x - 8},${firstPos.y + NODE_HEIGHT / 2}`}
                  markerEnd="url(#rc-arrow)"
                  style={{ stroke: colors.edge, strokeWidth: 1.5, fill: 'none' }}
                />
              </g>
            )}

            {/* lines first, then their labels, so no line is drawn over another's label */}
            {arrows.map((a) => {
              const traced = highlight?.arrows.has(a.key) === true;
              return (
                <path
                  key={a.key}
                  d={a.d}
                  markerEnd={traced ? 'url(#rc-arrow-trace)' : 'url(#rc-arrow)'}
                  data-testid="rule-chain-arrow"
                  data-key={a.key}
                  data-relation={a.label}
                  data-from={a.from}
                  data-to={a.to}
                  data-traced={traced}
                  style={{
                    stroke: traced ? colors.trace : colors.edge,
                    strokeWidth: traced ? 2.5 : 1.5,
                    fill: 'none',
                  }}
                />
              );
            })}
            {arrows.map((a) => (
              <g key={a.key} aria-hidden="true" data-testid="rule-chain-label" data-key={a.key}>
                <rect
                  data-label-box
                  x={a.lx - a.w / 2}
                  y={a.ly - LABEL_H / 2}
                  width={a.w}
                  height={LABEL_H}
                  rx={4}
                  style={{ fill: colors.labelBg, stroke: colors.edge, strokeWidth: 1 }}
                />
                <text
                  x={a.lx}
                  y={a.ly + 4}
                  textAnchor="middle"
                  fontSize={LABEL_FONT}
                  data-max-width={a.w - 4}
                  style={{ fill: colors.label }}
                >
                  {a.label}
                </text>
              </g>
            ))}

            {link && linkFrom && (
              <path
                d={`M${linkFrom.x + NODE_WIDTH},${linkFrom.y + NODE_HEIGHT / 2} L${link.x},${link.y}`}
                data-testid="pending-connection"
                style={{ stroke: colors.selected, strokeWidth: 2, strokeDasharray: '6 4', fill: 'none' }}
              />
            )}

            {draft.nodes.map((node, i) => {
              const p = positionOf(node, i);
              const type = typeOf.get(node.type);
              const isSelected = selected === i;
              const hasProblem = problemNodes.has(i);
              const steps = highlight?.steps.get(i);
              const typeLabel = type?.label ?? `Unsupported: ${shortType(node.type)}`;
              const mark = debugMark(debugState(node, now));
              const typeText = `${typeLabel}${mark ? ` · ${mark}` : ''}`;
              const typeLine = ellipsize(typeText, TYPE_WIDTH, TYPE_FONT);
              const name = fitText(node.name, NAME_WIDTH, NAME_FONT, 600);
              const nameY = name.length === 1 ? [21] : [16, 30];
              const hasOut = !type || type.relations.length > 0 || type.customRelations === true;
              const accent = colors.accent(
                TYPE_COLORS[node.type] ?? GROUP_COLORS[type?.componentType ?? ''] ?? 'gray',
              );
              const stroke = hasProblem
                ? colors.error
                : isSelected || linkTarget === i
                  ? colors.selected
                  : steps
                    ? colors.trace
                    : colors.edge;
              return (
                <g
                  key={node.id?.id ?? `new-${i}`}
                  className="rc-node"
                  transform={`translate(${p.x},${p.y})`}
                  tabIndex={0}
                  role="button"
                  aria-pressed={isSelected}
                  aria-label={`${node.name} ${typeLabel}${mark ? ` · ${mark}` : ''}${hasProblem ? ', has a problem' : ''}${steps ? `, step ${steps.join(' and ')} of the message` : ''}`}
                  data-testid="rule-node"
                  data-name={node.name}
                  data-index={i}
                  data-selected={isSelected}
                  data-problem={hasProblem}
                  data-traced={steps ? steps.join(',') : undefined}
                  onPointerDown={(e) => onNodePointerDown(e, i)}
                  onPointerMove={onNodePointerMove}
                  onPointerUp={onNodePointerUp}
                  onPointerCancel={onNodePointerUp}
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
                      stroke,
                      strokeWidth: isSelected || hasProblem || steps || linkTarget === i ? 2.5 : 1,
                    }}
                  />
                  <rect width={6} height={NODE_HEIGHT} rx={3} style={{ fill: accent }} />
                  {name.map((line, l) => (
                    <text
                      key={l}
                      x={16}
                      y={nameY[l]}
                      fontSize={NAME_FONT}
                      fontWeight={600}
                      data-max-width={NAME_WIDTH}
                      style={{ fill: colors.text }}
                    >
                      {/* a space after each line: read together, the lines and the type are words apart */}
                      {`${line} `}
                    </text>
                  ))}
                  <text
                    x={16}
                    y={name.length === 1 ? 41 : 46}
                    fontSize={TYPE_FONT}
                    data-max-width={TYPE_WIDTH}
                    style={{ fill: colors.dimmed }}
                  >
                    {typeLine}
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
                  {steps && (
                    <g aria-hidden="true" data-testid="trace-step">
                      <rect
                        x={NODE_WIDTH - 10 - textWidth(steps.join(','), 11, 700)}
                        y={-11}
                        width={textWidth(steps.join(','), 11, 700) + 14}
                        height={18}
                        rx={9}
                        style={{ fill: colors.trace }}
                      />
                      <text
                        x={NODE_WIDTH - 3}
                        y={2}
                        textAnchor="end"
                        fontSize={11}
                        fontWeight={700}
                        style={{ fill: colors.traceText }}
                      >
                        {steps.join(',')}
                      </text>
                    </g>
                  )}
                  <circle
                    aria-hidden="true"
                    cx={0}
                    cy={NODE_HEIGHT / 2}
                    r={4}
                    style={{ fill: colors.edge }}
                  />
                  {hasOut && (
                    <circle
                      className="rc-port"
                      aria-hidden="true"
                      cx={NODE_WIDTH}
                      cy={NODE_HEIGHT / 2}
                      r={PORT_R}
                      data-testid="node-out-port"
                      data-index={i}
                      style={{ fill: colors.nodeBg, stroke: accent, strokeWidth: 2 }}
                      onPointerDown={(e) => onPortPointerDown(e, i)}
                    />
                  )}
                </g>
              );
            })}
          </svg>
        </div>
      </div>
    </div>
  );
}

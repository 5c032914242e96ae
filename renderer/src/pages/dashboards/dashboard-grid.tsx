import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { GRID_COLUMNS, type Widget, type WidgetLayout } from './dashboard-model.ts';
import { WidgetFrame } from './widget-frame.tsx';

const GAP = 8;

/** The 24-column grid with square cells; the row height follows the width, as ThingsBoard's does. */
function useCellSize(ref: React.RefObject<HTMLDivElement | null>): number {
  const [width, setWidth] = useState(1000);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(([entry]) => setWidth(entry!.contentRect.width));
    ro.observe(el);
    return () => ro.disconnect();
  }, [ref]);
  return Math.max(16, (width - GAP * (GRID_COLUMNS - 1)) / GRID_COLUMNS);
}

export function clampLayout(l: WidgetLayout): WidgetLayout {
  const sizeX = Math.min(GRID_COLUMNS, Math.max(1, Math.round(l.sizeX)));
  return {
    sizeX,
    sizeY: Math.min(200, Math.max(1, Math.round(l.sizeY))),
    col: Math.min(GRID_COLUMNS - sizeX, Math.max(0, Math.round(l.col))),
    row: Math.max(0, Math.round(l.row)),
  };
}

interface Drag {
  id: string;
  mode: 'move' | 'resize';
  x: number;
  y: number;
  start: WidgetLayout;
}

/**
 * The widgets of a state's layout on the grid. While editing, a widget moves by dragging its frame
 * (or the arrow keys) and resizes by its corner (or Shift with the arrow keys); Delete removes it.
 */
export function DashboardGrid({
  widgets,
  layout,
  editing,
  onLayout,
  onEditWidget,
  onRemoveWidget,
}: {
  widgets: Record<string, Widget>;
  layout: Record<string, WidgetLayout>;
  editing: boolean;
  onLayout: (id: string, l: WidgetLayout) => void;
  onEditWidget: (id: string) => void;
  onRemoveWidget: (id: string) => void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const cell = useCellSize(ref);
  const [drag, setDrag] = useState<Drag | null>(null);
  const [preview, setPreview] = useState<WidgetLayout | null>(null);
  const ids = Object.keys(layout).filter((id) => widgets[id]);
  const rows = Math.max(1, ...ids.map((id) => layout[id]!.row + layout[id]!.sizeY));
  const step = cell + GAP;

  const onPointerDown = (id: string, mode: Drag['mode']) => (e: PointerEvent<HTMLElement>) => {
    if (!editing || e.button !== 0) return;
    if ((e.target as HTMLElement).closest('button, input, a, [role="slider"]') && mode === 'move') return;
    e.preventDefault();
    e.stopPropagation();
    e.currentTarget.setPointerCapture(e.pointerId);
    setDrag({ id, mode, x: e.clientX, y: e.clientY, start: layout[id]! });
    setPreview(layout[id]!);
  };
  const onPointerMove = (e: PointerEvent<HTMLElement>) => {
    if (!drag) return;
    const dx = Math.round((e.clientX - drag.x) / step);
    const dy = Math.round((e.clientY - drag.y) / step);
    const s = drag.start;
    setPreview(
      clampLayout(
        drag.mode === 'move'
          ? { ...s, col: s.col + dx, row: s.row + dy }
          : { ...s, sizeX: s.sizeX + dx, sizeY: s.sizeY + dy },
      ),
    );
  };
  const onPointerUp = () => {
    if (drag && preview) onLayout(drag.id, preview);
    setDrag(null);
    setPreview(null);
  };
  const onKeyDown = (id: string) => (e: KeyboardEvent<HTMLElement>) => {
    if (!editing || e.target !== e.currentTarget) return;
    const l = layout[id]!;
    const d: Record<string, [number, number]> = {
      ArrowLeft: [-1, 0],
      ArrowRight: [1, 0],
      ArrowUp: [0, -1],
      ArrowDown: [0, 1],
    };
    if (e.key in d) {
      e.preventDefault();
      const [dx, dy] = d[e.key]!;
      onLayout(
        id,
        clampLayout(
          e.shiftKey
            ? { ...l, sizeX: l.sizeX + dx, sizeY: l.sizeY + dy }
            : { ...l, col: l.col + dx, row: l.row + dy },
        ),
      );
    } else if (e.key === 'Delete' || e.key === 'Backspace') {
      e.preventDefault();
      onRemoveWidget(id);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      onEditWidget(id);
    }
  };

  return (
    <div
      ref={ref}
      data-testid="dashboard-grid"
      style={{
        display: 'grid',
        gridTemplateColumns: `repeat(${GRID_COLUMNS}, minmax(0, 1fr))`,
        gridAutoRows: `${cell}px`,
        gridTemplateRows: `repeat(${rows + (editing ? 4 : 0)}, ${cell}px)`,
        gap: GAP,
        position: 'relative',
        backgroundImage: editing
          ? `linear-gradient(to right, var(--mantine-color-default-border) 1px, transparent 1px), linear-gradient(to bottom, var(--mantine-color-default-border) 1px, transparent 1px)`
          : undefined,
        backgroundSize: editing ? `${step}px ${step}px` : undefined,
      }}
    >
      {ids.map((id) => {
        const l = drag?.id === id && preview ? preview : layout[id]!;
        const w = widgets[id]!;
        const label = w.config.title || id;
        return (
          <div
            key={id}
            data-widget-id={id}
            data-layout={`${l.col},${l.row},${l.sizeX},${l.sizeY}`}
            tabIndex={editing ? 0 : undefined}
            role={editing ? 'group' : undefined}
            aria-label={
              editing
                ? `${label}: arrow keys move, Shift+arrows resize, Enter edits, Delete removes`
                : undefined
            }
            onKeyDown={onKeyDown(id)}
            onPointerDown={onPointerDown(id, 'move')}
            onPointerMove={onPointerMove}
            onPointerUp={onPointerUp}
            style={{
              gridColumn: `${l.col + 1} / span ${l.sizeX}`,
              gridRow: `${l.row + 1} / span ${l.sizeY}`,
              position: 'relative',
              minWidth: 0,
              minHeight: 0,
              cursor: editing ? (drag?.id === id ? 'grabbing' : 'grab') : undefined,
              opacity: drag?.id === id ? 0.85 : 1,
              outlineOffset: 2,
            }}
          >
            <WidgetFrame
              widget={w}
              editing={editing}
              onEdit={() => onEditWidget(id)}
              onRemove={() => onRemoveWidget(id)}
            />
            {editing && (
              <div
                aria-hidden
                data-testid="resize-handle"
                onPointerDown={onPointerDown(id, 'resize')}
                onPointerMove={onPointerMove}
                onPointerUp={onPointerUp}
                style={{
                  position: 'absolute',
                  right: 0,
                  bottom: 0,
                  width: 16,
                  height: 16,
                  cursor: 'nwse-resize',
                  borderRight: '3px solid var(--mantine-color-blue-6)',
                  borderBottom: '3px solid var(--mantine-color-blue-6)',
                }}
              />
            )}
          </div>
        );
      })}
    </div>
  );
}

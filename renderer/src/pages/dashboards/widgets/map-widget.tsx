import { useComputedColorScheme, useMantineTheme } from '@mantine/core';
import { useWidgetData } from '../dashboard-context.tsx';
import type { Widget } from '../dashboard-model.ts';
import { runAction } from './tables.tsx';
import { num, setting } from './widget-format.ts';
import { WidgetMessage } from './widget-message.tsx';
import { useDashboard } from '../dashboard-context.tsx';

/**
 * The map, with no tiles from the internet: on an image map the entities sit at their relative
 * positions (xPos, yPos from 0 to 1) over the dashboard's own image; on a geographic map they sit on a
 * plain plane spanning their coordinates (latitude, longitude), with a grid of degrees.
 */
export function MapWidget({ widget, image }: { widget: Widget; image?: boolean }) {
  const { data, store } = useWidgetData(widget, 'latest');
  const ctx = useDashboard();
  const theme = useMantineTheme();
  const dark = useComputedColorScheme('light') === 'dark';
  const xKey = setting(widget, image ? 'xPosKeyName' : 'lngKeyName', image ? 'xPos' : 'longitude');
  const yKey = setting(widget, image ? 'yPosKeyName' : 'latKeyName', image ? 'yPos' : 'latitude');
  const imageUrl = setting<string>(widget, 'mapImageUrl', '');
  const action = widget.config.actions?.markerClick?.[0];
  const error = data.find((d) => d.error)?.error;
  if (error) return <WidgetMessage text={error} tone="error" />;
  const points = data.flatMap((d) =>
    d.rows.flatMap((row) => {
      const find = (name: string) => d.keys.find((k) => k.name === name);
      const xk = find(xKey);
      const yk = find(yKey);
      const x = num(xk ? store.shown(row.entityId.id, xk, row.latest[xKey]) : row.latest[xKey]?.value, NaN);
      const y = num(yk ? store.shown(row.entityId.id, yk, row.latest[yKey]) : row.latest[yKey]?.value, NaN);
      return Number.isFinite(x) && Number.isFinite(y) ? [{ row, x, y }] : [];
    }),
  );
  // geofences: ThingsBoard's polygon option, an attribute holding [[lat, lng], ...] on an entity
  const polygonKey = setting(widget, 'polygonKeyName', 'perimeter');
  const polygonColor = setting(widget, 'polygonColor', '#ff5722');
  const polygons =
    image || !setting(widget, 'showPolygon', false)
      ? []
      : data.flatMap((d) =>
          d.rows.flatMap((row) => {
            const ring = polygonPoints(row.latest[polygonKey]?.value);
            return ring ? [{ row, ring }] : [];
          }),
        );
  const W = 400;
  const H = 260;
  let toX = (x: number) => x * W;
  let toY = (y: number) => y * H;
  const grid: { x?: number; y?: number; label: string }[] = [];
  if (!image && (points.length > 0 || polygons.length > 0)) {
    const xs = [...points.map((p) => p.x), ...polygons.flatMap((p) => p.ring.map(([, lng]) => lng))];
    const ys = [...points.map((p) => p.y), ...polygons.flatMap((p) => p.ring.map(([lat]) => lat))];
    const pad = (a: number, b: number) => Math.max((b - a) * 0.15, 0.001);
    const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
    const [y0, y1] = [Math.min(...ys), Math.max(...ys)];
    const [px, py] = [pad(x0, x1), pad(y0, y1)];
    toX = (x) => ((x - (x0 - px)) / (x1 - x0 + 2 * px)) * W;
    toY = (y) => H - ((y - (y0 - py)) / (y1 - y0 + 2 * py)) * H;
    for (let i = 0; i <= 4; i++) {
      const gx = x0 - px + ((x1 - x0 + 2 * px) * i) / 4;
      const gy = y0 - py + ((y1 - y0 + 2 * py) * i) / 4;
      grid.push({ x: toX(gx), label: gx.toFixed(4) }, { y: toY(gy), label: gy.toFixed(4) });
    }
  }
  const fg = dark ? theme.colors.dark[0] : theme.colors.gray[8];
  const line = dark ? theme.colors.dark[4] : theme.colors.gray[3];
  return (
    <svg
      viewBox={`0 0 ${W} ${H}`}
      width="100%"
      height="100%"
      preserveAspectRatio="xMidYMid meet"
      data-testid="map-widget"
      role="img"
      aria-label={`Map of ${points.length} entities`}
    >
      <rect x={0} y={0} width={W} height={H} fill={dark ? theme.colors.dark[6] : theme.colors.gray[0]} />
      {image && imageUrl.startsWith('data:image/') && (
        <image href={imageUrl} x={0} y={0} width={W} height={H} preserveAspectRatio="none" />
      )}
      {grid.map((g, i) =>
        g.x !== undefined ? (
          <g key={i}>
            <line x1={g.x} y1={0} x2={g.x} y2={H} stroke={line} />
            <text x={g.x + 2} y={H - 3} fontSize={8} fill={fg} opacity={0.6}>
              {g.label}
            </text>
          </g>
        ) : (
          <g key={i}>
            <line x1={0} y1={g.y} x2={W} y2={g.y} stroke={line} />
            <text x={2} y={g.y! - 2} fontSize={8} fill={fg} opacity={0.6}>
              {g.label}
            </text>
          </g>
        ),
      )}
      {polygons.map(({ row, ring }) => (
        <polygon
          key={`zone-${row.entityId.id}`}
          points={ring.map(([lat, lng]) => `${toX(lng)},${toY(lat)}`).join(' ')}
          fill={polygonColor}
          fillOpacity={0.15}
          stroke={polygonColor}
          strokeWidth={2}
          data-testid="map-polygon"
          data-entity={row.name}
        >
          <title>{row.label || row.name}</title>
        </polygon>
      ))}
      {points.map(({ row, x, y }) => (
        <g
          key={row.entityId.id}
          transform={`translate(${toX(x)} ${toY(y)})`}
          data-entity={row.name}
          style={action ? { cursor: 'pointer' } : undefined}
          onClick={() => action && runAction(ctx, action, row)}
        >
          <circle r={6} fill={theme.colors.blue[6]} stroke="white" strokeWidth={1.5} />
          <text y={-10} fontSize={10} textAnchor="middle" fill={fg}>
            {row.label || row.name}
          </text>
        </g>
      ))}
      {points.length === 0 && (
        <text x={W / 2} y={H / 2} fontSize={12} textAnchor="middle" fill={fg} opacity={0.7}>
          {data.every((d) => d.loaded) ? `No entity has ${yKey} and ${xKey}` : 'Loading…'}
        </text>
      )}
    </svg>
  );
}

/** A polygon attribute ([[lat, lng], ...], as JSON text or an array), or null when it is not one. */
function polygonPoints(value: unknown): [number, number][] | null {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return null;
    }
  }
  if (!Array.isArray(v) || v.length < 3 || v.length > 1000) return null;
  const ring = v.filter(
    (p): p is [number, number] =>
      Array.isArray(p) && p.length >= 2 && Number.isFinite(p[0]) && Number.isFinite(p[1]),
  );
  return ring.length === v.length ? ring.map(([lat, lng]) => [lat, lng]) : null;
}

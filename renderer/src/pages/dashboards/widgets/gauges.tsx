import { useComputedColorScheme, useMantineTheme } from '@mantine/core';
import { useWidgetData } from '../dashboard-context.tsx';
import type { Widget } from '../dashboard-model.ts';
import { firstValue, formatKeyValue, keyLabel, num, setting } from './widget-format.ts';
import { WidgetMessage } from './widget-message.tsx';

/** A point on the gauge's arc: angle 0 at the left end, 1 at the right (a 240° arc). */
function polar(cx: number, cy: number, r: number, t: number): [number, number] {
  const a = ((150 + 240 * t) * Math.PI) / 180;
  return [cx + r * Math.cos(a), cy + r * Math.sin(a)];
}

function arc(cx: number, cy: number, r: number, from: number, to: number): string {
  const [x1, y1] = polar(cx, cy, r, from);
  const [x2, y2] = polar(cx, cy, r, to);
  return `M ${x1} ${y1} A ${r} ${r} 0 ${(to - from) * 240 > 180 ? 1 : 0} 1 ${x2} ${y2}`;
}

/** The analogue gauge (needle over a scale with ticks) and the digital one (a filled arc and the number). */
export function GaugeWidget({ widget, digital }: { widget: Widget; digital?: boolean }) {
  const { data, store } = useWidgetData(widget, 'latest');
  const theme = useMantineTheme();
  const dark = useComputedColorScheme('light') === 'dark';
  const v = firstValue(data, store);
  if (v.error) return <WidgetMessage text={v.error} tone="error" />;
  const min = num(setting(widget, 'minValue', 0), 0);
  const max = num(setting(widget, 'maxValue', 100), 100);
  const value = typeof v.value === 'number' ? v.value : Number(v.value);
  const t = Number.isFinite(value) && max > min ? Math.min(1, Math.max(0, (value - min) / (max - min))) : 0;
  const fg = dark ? theme.colors.dark[0] : theme.colors.gray[8];
  const track = dark ? theme.colors.dark[4] : theme.colors.gray[3];
  const color = v.key?.color ?? setting(widget, 'gaugeColor', theme.colors.blue[6]);
  const label = setting(widget, 'title', '') || (v.key ? keyLabel(v.key) : '');
  const shown = v.loaded ? formatKeyValue(v.value, v.key, widget) : '…';
  const ticks = Array.from({ length: 11 }, (_, i) => i / 10);
  const [nx, ny] = polar(100, 100, 68, t);
  return (
    <svg
      viewBox="0 0 200 170"
      width="100%"
      height="100%"
      role="img"
      aria-label={`${label}: ${shown}`}
      data-testid={digital ? 'digital-gauge' : 'analogue-gauge'}
      data-value={Number.isFinite(value) ? value : ''}
    >
      <path
        d={arc(100, 100, 80, 0, 1)}
        stroke={track}
        strokeWidth={digital ? 16 : 4}
        fill="none"
        strokeLinecap="round"
      />
      {digital ? (
        t > 0 && (
          <path
            d={arc(100, 100, 80, 0, t)}
            stroke={color}
            strokeWidth={16}
            fill="none"
            strokeLinecap="round"
          />
        )
      ) : (
        <>
          {ticks.map((k) => {
            const [x1, y1] = polar(100, 100, 80, k);
            const [x2, y2] = polar(100, 100, 70, k);
            const [lx, ly] = polar(100, 100, 58, k);
            return (
              <g key={k}>
                <line x1={x1} y1={y1} x2={x2} y2={y2} stroke={fg} strokeWidth={1.5} />
                {(k * 10) % 2 === 0 && (
                  <text x={lx} y={ly + 3} fontSize={9} textAnchor="middle" fill={fg}>
                    {Math.round((min + (max - min) * k) * 10) / 10}
                  </text>
                )}
              </g>
            );
          })}
          <line x1={100} y1={100} x2={nx} y2={ny} stroke={color} strokeWidth={3} strokeLinecap="round" />
          <circle cx={100} cy={100} r={5} fill={color} />
        </>
      )}
      <text
        x={100}
        y={digital ? 108 : 140}
        fontSize={digital ? 24 : 16}
        fontWeight={700}
        textAnchor="middle"
        fill={fg}
      >
        {shown}
      </text>
      <text x={100} y={digital ? 130 : 160} fontSize={11} textAnchor="middle" fill={fg} opacity={0.7}>
        {label}
      </text>
      {digital && (
        <>
          <text x={38} y={160} fontSize={9} textAnchor="middle" fill={fg} opacity={0.7}>
            {min}
          </text>
          <text x={162} y={160} fontSize={9} textAnchor="middle" fill={fg} opacity={0.7}>
            {max}
          </text>
        </>
      )}
    </svg>
  );
}

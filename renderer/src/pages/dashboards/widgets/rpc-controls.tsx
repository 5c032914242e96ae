import { Button, Center, Slider, Stack, Switch, Text } from '@mantine/core';
import { useComputedColorScheme, useMantineTheme } from '@mantine/core';
import { useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { useApi } from '../../../api/api-context.tsx';
import { ApiError } from '../../../api/client.ts';
import { useDashboard, useWidgetData } from '../dashboard-context.tsx';
import type { DataKey, Datasource, Widget } from '../dashboard-model.ts';
import { num, setting } from './widget-format.ts';

/**
 * The RPC controls (switch, button, slider, knob): each sends a command to its target device through
 * POST /api/rpc/{oneway|twoway}/{deviceId}, as ThingsBoard's control widgets do. Both the control
 * widgets of ThingsBoard 3.7+ (onUpdateState / onClickState with executeRpc) and the older ones
 * (setValueMethod, methodName) are read. The shown state follows the attribute or time series the
 * widget says holds it.
 */

interface RpcAction {
  method: string;
  timeout: number;
  twoWay: boolean;
  persistent: boolean;
  params: (value: unknown) => unknown;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null ? (v as Obj) : {});

function parseParams(text: unknown): unknown {
  if (typeof text !== 'string') return text ?? {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function rpcActionOf(
  widget: Widget,
  state: 'onUpdateState' | 'onClickState',
  legacyDefault: string,
): RpcAction | string {
  const s = obj(widget.config.settings);
  const modern = obj(s[state]);
  if (modern.action) {
    if (modern.action !== 'EXECUTE_RPC')
      return `This control's action ${String(modern.action)} is not run here`;
    const rpc = obj(modern.executeRpc);
    const toData = obj(modern.valueToData);
    return {
      method: String(rpc.method ?? legacyDefault),
      timeout: num(rpc.requestTimeout, 5_000),
      twoWay: true,
      persistent: rpc.requestPersistent === true,
      params: (value) =>
        toData.type === 'CONSTANT' ? toData.constantValue : toData.type === 'NONE' ? {} : value,
    };
  }
  const method = String(s.setValueMethod ?? s.methodName ?? legacyDefault);
  const fixed = s.methodParams;
  return {
    method,
    timeout: num(s.requestTimeout, 5_000),
    twoWay: s.oneWayElseTwoWay !== true,
    persistent: s.requestPersistent === true,
    params: (value) => (fixed !== undefined && value === undefined ? parseParams(fixed) : value),
  };
}

/** The key holding the control's state, if the widget names one (initialState or retrieveValueMethod). */
function stateKey(widget: Widget): DataKey | null {
  const s = obj(widget.config.settings);
  const initial = obj(s.initialState);
  if (initial.action === 'GET_ATTRIBUTE')
    return { name: String(obj(initial.getAttribute).key ?? 'state'), type: 'attribute' };
  if (initial.action === 'GET_TIME_SERIES')
    return { name: String(obj(initial.getTimeSeries).key ?? 'state'), type: 'timeseries' };
  if (s.retrieveValueMethod === 'attribute' && s.valueKey)
    return { name: String(s.valueKey), type: 'attribute' };
  if (s.retrieveValueMethod === 'timeseries' && s.valueKey)
    return { name: String(s.valueKey), type: 'timeseries' };
  return null;
}

function targetSource(widget: Widget, key: DataKey | null): Datasource | null {
  const t = widget.config.targetDevice;
  const keys = key ? [key] : [];
  if (t?.type === 'device' && t.deviceId) return { type: 'device', deviceId: t.deviceId, dataKeys: keys };
  const alias = t?.entityAliasId ?? widget.config.targetDeviceAliasIds?.[0];
  if (alias) return { type: 'entity', entityAliasId: alias, dataKeys: keys };
  if (t?.deviceId) return { type: 'device', deviceId: t.deviceId, dataKeys: keys };
  return null;
}

/** The target device and its current state value; send() runs the action with a value. */
function useRpcTarget(widget: Widget, state: 'onUpdateState' | 'onClickState', legacy: string) {
  const client = useApi();
  const ctx = useDashboard();
  const key = stateKey(widget);
  const source = targetSource(widget, key);
  const { data } = useWidgetData(widget, 'latest', source ? [source] : []);
  const row = data[0]?.rows[0];
  const device = row?.entityId.entityType === 'DEVICE' ? row.entityId.id : undefined;
  const [status, setStatus] = useState<{ text: string; error?: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  const action = rpcActionOf(widget, state, legacy);
  const problem = !source
    ? 'No target device: set the widget’s target device'
    : data[0]?.error
      ? data[0].error
      : data[0]?.loaded && !device
        ? 'The target alias resolves to no device'
        : typeof action === 'string'
          ? action
          : null;
  const send = async (value: unknown) => {
    if (!device || typeof action === 'string' || !ctx.interactive) return;
    setBusy(true);
    try {
      const body = {
        method: action.method,
        params: action.params(value),
        timeout: action.timeout,
        persistent: action.persistent || undefined,
      };
      const answer = await client.rpc(device, action.twoWay ? 'twoway' : 'oneway', body);
      setStatus({
        text:
          action.twoWay && answer !== undefined
            ? `Answer: ${JSON.stringify(answer)}`
            : `Sent ${action.method}`,
      });
    } catch (err) {
      const timedOut = err instanceof ApiError && (err.status === 504 || err.status === 408);
      setStatus({
        text: timedOut ? `Sent ${action.method}; the device did not answer in time` : (err as Error).message,
        error: !timedOut,
      });
    } finally {
      setBusy(false);
    }
  };
  return {
    value: key && row ? row.latest[key.name]?.value : undefined,
    send,
    busy,
    status,
    problem,
    ready: !!device && !problem,
  };
}

function Footer({
  status,
  problem,
}: {
  status: { text: string; error?: boolean } | null;
  problem: string | null;
}) {
  const text = problem ?? status?.text;
  if (!text) return null;
  return (
    <Text
      size="xs"
      c={problem || status?.error ? 'red' : 'dimmed'}
      ta="center"
      lineClamp={2}
      data-testid="rpc-status"
    >
      {text}
    </Text>
  );
}

const truthy = (v: unknown) => v === true || v === 'true' || v === 1 || v === '1' || v === 'on';

export function SwitchControl({ widget }: { widget: Widget }) {
  const t = useRpcTarget(widget, 'onUpdateState', 'setValue');
  const [local, setLocal] = useState<boolean | null>(null);
  const checked = local ?? truthy(t.value);
  const label =
    setting(widget, 'title', '') || setting(widget, 'label', '') || widget.config.title || 'Switch';
  return (
    <Stack h="100%" justify="center" align="center" gap="xs" data-testid="rpc-switch">
      <Switch
        size="lg"
        label={label}
        checked={checked}
        disabled={!t.ready || t.busy}
        onChange={(e) => {
          const next = e.currentTarget.checked;
          setLocal(next);
          void t.send(next);
        }}
      />
      <Footer status={t.status} problem={t.problem} />
    </Stack>
  );
}

export function ButtonControl({ widget }: { widget: Widget }) {
  const t = useRpcTarget(widget, 'onClickState', 'rpcCommand');
  const s = obj(widget.config.settings);
  const label = String(obj(s.appearance).label ?? s.buttonText ?? widget.config.title ?? 'Send');
  return (
    <Stack h="100%" justify="center" align="center" gap="xs" data-testid="rpc-button">
      <Button disabled={!t.ready} loading={t.busy} onClick={() => void t.send(undefined)}>
        {label}
      </Button>
      <Footer status={t.status} problem={t.problem} />
    </Stack>
  );
}

export function SliderControl({ widget }: { widget: Widget }) {
  const t = useRpcTarget(widget, 'onUpdateState', 'setValue');
  const min = num(setting(widget, 'minValue', setting(widget, 'min', 0)), 0);
  const max = num(setting(widget, 'maxValue', setting(widget, 'max', 100)), 100);
  const [local, setLocal] = useState<number | null>(null);
  const value = local ?? num(t.value, min);
  return (
    <Stack h="100%" justify="center" gap="xs" px="md" data-testid="rpc-slider">
      <Text size="sm" ta="center">
        {widget.config.title ?? 'Value'}: {value}
      </Text>
      <Slider
        min={min}
        max={max}
        value={value}
        disabled={!t.ready}
        label={(v) => String(v)}
        onChange={setLocal}
        onChangeEnd={(v) => void t.send(v)}
        thumbLabel={widget.config.title ?? 'Value'}
      />
      <Footer status={t.status} problem={t.problem} />
    </Stack>
  );
}

/** The knob: drag around it or use the arrow keys (Page Up/Down for tenths, Home/End for the ends). */
export function KnobControl({ widget }: { widget: Widget }) {
  const t = useRpcTarget(widget, 'onUpdateState', 'setValue');
  const theme = useMantineTheme();
  const dark = useComputedColorScheme('light') === 'dark';
  const min = num(setting(widget, 'minValue', 0), 0);
  const max = num(setting(widget, 'maxValue', 100), 100);
  const [local, setLocal] = useState<number | null>(null);
  const value = local ?? num(t.value, num(setting(widget, 'initialValue', min), min));
  const frac = max > min ? (value - min) / (max - min) : 0;
  const ref = useRef<SVGSVGElement>(null);
  const dragging = useRef(false);
  const step = (max - min) / 100;
  const round = (v: number) => Math.round(Math.min(max, Math.max(min, v)) * 100) / 100;
  const fromPointer = (e: PointerEvent<SVGSVGElement>) => {
    const box = ref.current!.getBoundingClientRect();
    const a =
      (Math.atan2(e.clientY - (box.top + box.height / 2), e.clientX - (box.left + box.width / 2)) * 180) /
      Math.PI;
    const deg = (a - 135 + 360) % 360; // 0 at the scale's start (bottom left), 270 at its end
    if (deg > 270) return;
    setLocal(round(min + ((max - min) * deg) / 270));
  };
  const onKey = (e: KeyboardEvent<SVGSVGElement>) => {
    const moves: Record<string, number> = {
      ArrowUp: step,
      ArrowRight: step,
      ArrowDown: -step,
      ArrowLeft: -step,
      PageUp: step * 10,
      PageDown: -step * 10,
    };
    let next: number | undefined;
    if (e.key in moves) next = round(value + moves[e.key]!);
    if (e.key === 'Home') next = min;
    if (e.key === 'End') next = max;
    if (next === undefined) return;
    e.preventDefault();
    setLocal(next);
    void t.send(next);
  };
  const angle = 135 + 270 * frac;
  const rad = (angle * Math.PI) / 180;
  const fg = dark ? theme.colors.dark[0] : theme.colors.gray[8];
  return (
    <Stack h="100%" justify="center" align="center" gap={2} data-testid="rpc-knob">
      <Center style={{ flex: 1, minHeight: 0, width: '100%' }}>
        <svg
          ref={ref}
          viewBox="0 0 120 120"
          style={{
            height: '100%',
            maxWidth: '100%',
            touchAction: 'none',
            cursor: t.ready ? 'grab' : 'default',
          }}
          role="slider"
          tabIndex={t.ready ? 0 : -1}
          aria-label={widget.config.title ?? 'Knob'}
          aria-valuemin={min}
          aria-valuemax={max}
          aria-valuenow={value}
          aria-disabled={!t.ready}
          onKeyDown={t.ready ? onKey : undefined}
          onPointerDown={(e) => {
            if (!t.ready) return;
            dragging.current = true;
            e.currentTarget.setPointerCapture(e.pointerId);
            fromPointer(e);
          }}
          onPointerMove={(e) => dragging.current && fromPointer(e)}
          onPointerUp={() => {
            if (!dragging.current) return;
            dragging.current = false;
            void t.send(value);
          }}
        >
          <circle
            cx={60}
            cy={60}
            r={44}
            fill={dark ? theme.colors.dark[5] : theme.colors.gray[1]}
            stroke={dark ? theme.colors.dark[3] : theme.colors.gray[4]}
            strokeWidth={2}
          />
          <line
            x1={60 + 20 * Math.cos(rad)}
            y1={60 + 20 * Math.sin(rad)}
            x2={60 + 40 * Math.cos(rad)}
            y2={60 + 40 * Math.sin(rad)}
            stroke={theme.colors.blue[6]}
            strokeWidth={5}
            strokeLinecap="round"
          />
          <text x={60} y={65} fontSize={14} fontWeight={700} textAnchor="middle" fill={fg}>
            {value}
          </text>
          <text x={22} y={116} fontSize={9} textAnchor="middle" fill={fg} opacity={0.7}>
            {min}
          </text>
          <text x={98} y={116} fontSize={9} textAnchor="middle" fill={fg} opacity={0.7}>
            {max}
          </text>
        </svg>
      </Center>
      <Footer status={t.status} problem={t.problem} />
    </Stack>
  );
}

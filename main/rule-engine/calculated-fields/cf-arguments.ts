import type { AttributeScope } from '../../../shared/schemas/telemetry.ts';
import type { CfArgument } from '../../platform/calculated-fields.ts';
import type { KvValue } from '../../platform/kv-value.ts';
import type { Services } from '../../platform/services.ts';

/** ThingsBoard's SingleValueArgumentEntry: the latest value of a key and when it came. */
export interface SingleValue {
  kind: 'single';
  ts: number;
  value: KvValue;
}

/** ThingsBoard's TsRollingArgumentEntry: the points of a key in the window, oldest first. */
export interface RollingValue {
  kind: 'rolling';
  timeWindow: { startTs: number; endTs: number };
  values: { ts: number; value: number }[];
}

export type ArgValue = SingleValue | RollingValue;

export interface EntityRef {
  entityType: string;
  id: string;
}

/** The entity an argument reads: its refEntityId, or the entity the field runs for. */
export const sourceOf = (arg: CfArgument, entity: EntityRef): EntityRef =>
  arg.refEntityId && typeof arg.refEntityId.id === 'string' ? arg.refEntityId : entity;

const DEFAULT_ROLLING_WINDOW_MS = 86_400_000;

function defaultOf(arg: CfArgument): SingleValue | undefined {
  const d = arg.defaultValue;
  if (d === undefined || d === null || d === '') return undefined;
  const n = Number(d);
  return { kind: 'single', ts: 0, value: Number.isFinite(n) && String(d).trim() !== '' ? n : d };
}

export function toNumber(v: KvValue): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && v.trim() !== '') return Number(v);
  return NaN;
}

/** Reads an argument from the store (the first time a field runs for an entity, and for rolling windows). */
export function readArgument(
  services: Services,
  arg: CfArgument,
  entity: EntityRef,
  limit: number,
  latestOf?: (src: EntityRef, num: number) => Map<string, { ts: number; value: KvValue }>,
  numOf: (src: EntityRef) => number = (src) => services.directory.telemetryNum(src.entityType, src.id),
): ArgValue | undefined {
  const src = sourceOf(arg, entity);
  const key = arg.refEntityKey;
  if (key.type === 'ATTRIBUTE') {
    const scope = (key.scope ?? 'SERVER_SCOPE') as AttributeScope;
    const found = services.telemetry.attributes(src.id, [scope], [key.key])[0];
    return found ? { kind: 'single', ts: found.lastUpdateTs, value: found.value as KvValue } : defaultOf(arg);
  }
  const num = numOf(src);
  if (key.type === 'TS_LATEST') {
    const p = (latestOf ? latestOf(src, num) : services.ctx.telemetry.latest(num, [key.key])).get(key.key);
    return p ? { kind: 'single', ts: p.ts, value: p.value } : defaultOf(arg);
  }
  const endTs = Date.now();
  const startTs = endTs - (arg.timeWindow ?? DEFAULT_ROLLING_WINDOW_MS);
  const max = Math.min(arg.limit ?? limit, limit);
  const series = services.ctx.telemetry
    .history(num, {
      keys: [key.key],
      startTs,
      endTs: endTs + 1,
      limit: max,
      agg: 'NONE',
      interval: 0,
      orderBy: 'DESC',
    })
    .get(key.key);
  const values = (series ?? [])
    .map((p) => ({ ts: p.ts, value: toNumber(p.value) }))
    .filter((p) => Number.isFinite(p.value))
    .reverse();
  return { kind: 'rolling', timeWindow: { startTs, endTs }, values };
}

/** Adds a new point to a rolling argument, dropping what left the window or the limit. */
export function pushRolling(
  r: RollingValue,
  ts: number,
  value: number,
  arg: CfArgument,
  limit: number,
): void {
  const window = arg.timeWindow ?? DEFAULT_ROLLING_WINDOW_MS;
  const endTs = Math.max(r.timeWindow.endTs, ts);
  r.timeWindow = { startTs: endTs - window, endTs };
  if (Number.isFinite(value)) {
    let i = r.values.length;
    while (i > 0 && r.values[i - 1]!.ts > ts) i--;
    if (i > 0 && r.values[i - 1]!.ts === ts) r.values[i - 1]!.value = value;
    else r.values.splice(i, 0, { ts, value });
  }
  const max = Math.min(arg.limit ?? limit, limit);
  let drop = 0;
  while (drop < r.values.length && r.values[drop]!.ts < r.timeWindow.startTs) drop++;
  drop = Math.max(drop, r.values.length - max);
  if (drop > 0) r.values.splice(0, drop);
}

/** What a script sees of an argument: a single value itself, a rolling one as {timeWindow, values}. */
export function scriptValueOf(v: ArgValue): unknown {
  return v.kind === 'single' ? v.value : { timeWindow: v.timeWindow, values: v.values };
}

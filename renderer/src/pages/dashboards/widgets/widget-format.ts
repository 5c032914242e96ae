import type { DataKey, Widget } from '../dashboard-model.ts';
import type { DatasourceData, EntityRow, Point, WidgetData } from '../widget-data.ts';

/** A key's value as ThingsBoard shows it: the key's (or widget's) decimals and units. */
export function formatKeyValue(value: unknown, key: DataKey | undefined, widget: Widget): string {
  if (value === undefined || value === null || value === '') return '–';
  const decimals = key?.decimals ?? widget.config.decimals;
  const units = key?.units ?? widget.config.units ?? '';
  const text =
    typeof value === 'number'
      ? decimals !== undefined && decimals !== null
        ? value.toFixed(Math.min(10, Math.max(0, Number(decimals))))
        : String(Math.round(value * 1000) / 1000)
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value);
  return units ? `${text} ${units}` : text;
}

export const keyLabel = (k: DataKey): string => k.label || k.name;

export function num(v: unknown, fallback: number): number {
  const n = Number(v);
  return v !== null && v !== '' && Number.isFinite(n) ? n : fallback;
}

/** The first entity's first key with its shown value: what a value card or a gauge displays. */
export function firstValue(
  data: DatasourceData[],
  store: WidgetData,
): { key?: DataKey; row?: EntityRow; point?: Point; value: unknown; loaded: boolean; error?: string } {
  for (const ds of data) {
    const key = ds.keys[0];
    const row = ds.rows[0];
    if (ds.error) return { key, value: undefined, loaded: true, error: ds.error };
    if (!key || !row) continue;
    const point = row.latest[key.name];
    return { key, row, point, value: store.shown(row.entityId.id, key, point), loaded: true };
  }
  return { value: undefined, loaded: data.every((d) => d.loaded), key: data[0]?.keys[0] };
}

export function setting<T>(widget: Widget, name: string, fallback: T): T {
  const v = widget.config.settings?.[name];
  return v === undefined || v === null ? fallback : (v as T);
}

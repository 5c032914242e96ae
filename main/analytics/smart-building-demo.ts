/**
 * The "Smart building" demo: 3 buildings x 10 apartments x 2 meters (an energy and a water meter per
 * apartment) = 60 devices of two profiles, with building / apartment / floor attributes and 30 days of
 * hourly readings (108,000 datapoints), plus three saved table views. Written through the platform's
 * services in one batched write per device, with progress; loads in a few seconds.
 *
 * Idempotent: devices and views are found by name and reused, readings are anchored at the hour the
 * first load started (kept in the settings table) and generated deterministically, so a repeated or
 * interrupted load rewrites the same points. Once DONE, a start does nothing.
 */
import { EventEmitter } from 'node:events';
import type { DemoStatus, TableViewConfig } from '../../shared/schemas/table-view.ts';
import { requireTenantAdmin, type Principal } from '../platform/auth/principal.ts';
import { getSetting } from '../platform/context.ts';
import type { DeviceRow } from '../platform/devices.ts';
import type { Services } from '../platform/services.ts';
import type { TsEntry } from '../platform/telemetry-repository.ts';
import type { TableViewService } from './table-views.ts';

const SETTING = 'demo.smartBuilding';
const BUILDINGS = ['A', 'B', 'C'];
const FLOORS = 5;
const APARTMENTS_PER_FLOOR = 2;
const DAYS = 30;
const HOUR = 3_600_000;
const HOURS = DAYS * 24;
export const ENERGY_PROFILE = 'Energy Meter';
export const WATER_PROFILE = 'Water Meter';
const ENERGY_KEYS = 3; // energyUsage, energyTotal, voltage
const WATER_KEYS = 2; // waterUsage, waterTotal

interface Meter {
  name: string;
  profile: typeof ENERGY_PROFILE | typeof WATER_PROFILE;
  building: string;
  apartment: string;
  floor: number;
  seed: number;
}

function meters(): Meter[] {
  const out: Meter[] = [];
  let seed = 1;
  for (const b of BUILDINGS) {
    for (let floor = 1; floor <= FLOORS; floor++) {
      for (let a = 1; a <= APARTMENTS_PER_FLOOR; a++) {
        const apartment = `Apt ${floor}0${a}`;
        const common = { building: `Building ${b}`, apartment, floor };
        out.push({
          ...common,
          name: `Energy Meter ${b}-${floor}0${a}`,
          profile: ENERGY_PROFILE,
          seed: seed++,
        });
        out.push({ ...common, name: `Water Meter ${b}-${floor}0${a}`, profile: WATER_PROFILE, seed: seed++ });
      }
    }
  }
  return out;
}

/** mulberry32: a small deterministic generator, so a repeated load writes the same values. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;

/** A day's shape of use: low at night, peaks in the morning and the evening; more at weekends. */
function usageFactor(ts: number): number {
  const d = new Date(ts);
  const h = d.getUTCHours();
  const weekend = d.getUTCDay() === 0 || d.getUTCDay() === 6;
  const shape = h < 6 ? 0.3 : h < 9 ? 1.4 : h < 17 ? (weekend ? 1.1 : 0.6) : h < 22 ? 1.6 : 0.7;
  return shape * (weekend ? 1.15 : 1);
}

function readings(meter: Meter, anchorTs: number): TsEntry[] {
  const rnd = random(meter.seed * 7919);
  const size = 0.7 + rnd() * 0.8; // apartment size / household
  const entries: TsEntry[] = [];
  let total = round(1000 + rnd() * 5000, 2);
  for (let i = HOURS - 1; i >= 0; i--) {
    const ts = anchorTs - i * HOUR;
    const f = usageFactor(ts);
    if (meter.profile === ENERGY_PROFILE) {
      const energyUsage = round(size * f * (0.35 + rnd() * 0.3), 3);
      total = round(total + energyUsage, 3);
      entries.push({ ts, values: { energyUsage, energyTotal: total, voltage: round(228 + rnd() * 6, 1) } });
    } else {
      const waterUsage = round(size * f * (8 + rnd() * 14), 1);
      total = round(total + waterUsage, 1);
      entries.push({ ts, values: { waterUsage, waterTotal: total } });
    }
  }
  return entries;
}

interface Persisted {
  state: 'RUNNING' | 'DONE';
  anchorTs: number;
  startedTs: number;
  finishedTs: number | null;
  viewIds: string[];
}

const TOTAL_DEVICES = BUILDINGS.length * FLOORS * APARTMENTS_PER_FLOOR * 2;
const TOTAL_ROWS = (TOTAL_DEVICES / 2) * HOURS * (ENERGY_KEYS + WATER_KEYS);

function views(energyProfileId: string, waterProfileId: string): { name: string; config: TableViewConfig }[] {
  const last30 = { type: 'RELATIVE' as const, last: DAYS, unit: 'DAYS' as const };
  const building = { field: 'ATTRIBUTE' as const, key: 'building', scope: 'SERVER_SCOPE' as const };
  return [
    {
      name: 'Energy by building per day',
      config: {
        entities: { deviceProfileIds: [energyProfileId] },
        dimensions: [{ ...building, label: 'Building' }],
        date: { grouping: 'FULL_DATE', label: 'Date' },
        measures: [
          { key: 'energyUsage', aggregation: 'SUM', label: 'Energy, kWh' },
          { key: 'voltage', aggregation: 'AVG', label: 'Voltage, V' },
        ],
        filters: [{ name: 'building', ...building, values: [] }],
        timeRange: last30,
      },
    },
    {
      name: 'Water by apartment per week',
      config: {
        entities: { deviceProfileIds: [waterProfileId] },
        dimensions: [
          { ...building, label: 'Building' },
          { field: 'ATTRIBUTE', key: 'apartment', scope: 'SERVER_SCOPE', label: 'Apartment' },
        ],
        date: { grouping: 'START_OF_WEEK', label: 'Week' },
        measures: [
          { key: 'waterUsage', aggregation: 'SUM', label: 'Water, l' },
          { key: 'waterTotal', aggregation: 'DELTA', label: 'Meter advance, l' },
        ],
        filters: [
          { name: 'building', ...building, values: [] },
          { name: 'floor', field: 'ATTRIBUTE', key: 'floor', scope: 'SERVER_SCOPE', values: [] },
        ],
        timeRange: last30,
      },
    },
    {
      name: 'Energy by hour of day',
      config: {
        entities: { deviceProfileIds: [energyProfileId] },
        dimensions: [{ ...building, label: 'Building' }],
        date: { grouping: 'HOUR', label: 'Hour' },
        measures: [
          { key: 'energyUsage', aggregation: 'AVG', label: 'Average, kWh' },
          { key: 'energyUsage', aggregation: 'MAX', label: 'Peak, kWh' },
        ],
        filters: [{ name: 'building', ...building, values: [] }],
        timeRange: last30,
      },
    },
  ];
}

export class SmartBuildingDemo extends EventEmitter<{ progress: [DemoStatus] }> {
  private readonly services: Services;
  private readonly views: TableViewService;
  private current: DemoStatus;
  private running: Promise<DemoStatus> | null = null;

  constructor(services: Services, views: TableViewService) {
    super();
    this.services = services;
    this.views = views;
    const saved = getSetting<Persisted>(services.ctx.db, SETTING);
    this.current = {
      state: saved?.state === 'DONE' ? 'DONE' : saved ? 'FAILED' : 'NOT_LOADED',
      percent: saved?.state === 'DONE' ? 100 : 0,
      rowsWritten: saved?.state === 'DONE' ? TOTAL_ROWS : 0,
      totalRows: TOTAL_ROWS,
      devices: saved?.state === 'DONE' ? TOTAL_DEVICES : 0,
      totalDevices: TOTAL_DEVICES,
      startedTs: saved?.startedTs ?? null,
      finishedTs: saved?.finishedTs ?? null,
      error:
        saved && saved.state !== 'DONE' ? 'The last load was interrupted: start it again to finish it' : null,
      viewIds: saved?.viewIds ?? [],
    };
  }

  status(): DemoStatus {
    return { ...this.current, viewIds: [...this.current.viewIds] };
  }

  /** Starts the load (or joins the running one); resolves with the final status. DONE: nothing to do. */
  start(actor: Principal): Promise<DemoStatus> {
    requireTenantAdmin(actor);
    if (this.current.state === 'DONE') return Promise.resolve(this.status());
    this.running ??= this.load(actor).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private update(patch: Partial<DemoStatus>): void {
    this.current = { ...this.current, ...patch };
    this.emit('progress', this.status());
  }

  private async persist(value: Persisted): Promise<void> {
    await this.services.ctx.db.write((w) =>
      w.run('INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)', [SETTING, JSON.stringify(value)]),
    );
  }

  private async load(actor: Principal): Promise<DemoStatus> {
    const { ctx, devices, profiles, telemetry } = this.services;
    const saved = getSetting<Persisted>(ctx.db, SETTING);
    const startedTs = ctx.now();
    const anchorTs = saved?.anchorTs ?? Math.floor(startedTs / HOUR) * HOUR;
    this.update({
      state: 'RUNNING',
      percent: 0,
      rowsWritten: 0,
      devices: 0,
      startedTs,
      finishedTs: null,
      error: null,
    });
    try {
      await this.persist({ state: 'RUNNING', anchorTs, startedTs, finishedTs: null, viewIds: [] });
      const all = meters();
      const rows = new Map<string, DeviceRow>();
      await ctx.admit?.();
      const profileIds = await ctx.db.write((w) => {
        const ids: Record<string, string> = {};
        for (const name of [ENERGY_PROFILE, WATER_PROFILE]) {
          const p = profiles.findOrCreate(w, name);
          w.run('UPDATE device_profiles SET description = ? WHERE id = ? AND description IS NULL', [
            `Smart building demo: ${name.toLowerCase()}s`,
            p.id,
          ]);
          ids[name] = p.id;
        }
        for (const m of all) {
          if (w.get('SELECT 1 FROM devices WHERE name = ?', [m.name])) continue;
          devices.insert(w, {
            name: m.name,
            profileId: ids[m.profile]!,
            profileName: m.profile,
            label: `${m.building}, ${m.apartment}`,
            customerId: null,
            info: JSON.stringify({ description: 'Smart building demo' }),
          });
        }
        return ids;
      });
      for (const [i, m] of all.entries()) {
        const row = devices.findRowByName(m.name)!;
        rows.set(m.name, row);
        ctx.events.emit('deviceSaved', { deviceId: row.id, created: true });
        await telemetry.saveAttributes(row.id, 'SERVER_SCOPE', {
          building: m.building,
          apartment: m.apartment,
          floor: m.floor,
        });
        this.update({ devices: i + 1, percent: Math.floor(((i + 1) / all.length) * 5) });
      }
      let written = 0;
      for (const m of all) {
        written += await telemetry.saveTimeseries(rows.get(m.name)!, readings(m, anchorTs));
        this.update({ rowsWritten: written, percent: 5 + Math.floor((written / TOTAL_ROWS) * 92) });
      }
      const viewIds: string[] = [];
      for (const v of views(profileIds[ENERGY_PROFILE]!, profileIds[WATER_PROFILE]!)) {
        const existing = this.views.findByName(v.name);
        viewIds.push(existing ? existing.id.id : (await this.views.save(v, actor)).id.id);
      }
      const finishedTs = ctx.now();
      await this.persist({ state: 'DONE', anchorTs, startedTs, finishedTs, viewIds });
      this.update({ state: 'DONE', percent: 100, finishedTs, viewIds });
    } catch (err) {
      this.update({
        state: 'FAILED',
        error: `The demo load failed: ${(err as Error).message}`,
        finishedTs: ctx.now(),
      });
    }
    return this.status();
  }
}

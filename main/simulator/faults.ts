import type { Fault, FaultCount, FaultKind, FaultMarker } from '../../shared/schemas/simulation.ts';
import { RingLog } from './counters.ts';
import { seededRandom, type Random } from './generators.ts';

const DAY_MS = 86_400_000;

/** How long a fault lasts when the scenario does not say. */
export function faultDurationMs(f: Fault): number {
  if (f.durationMs !== undefined) return f.durationMs;
  if (f.kind === 'disconnect') return 5000;
  if (f.kind === 'reconnectStorm') return 10_000;
  return Number.POSITIVE_INFINITY;
}

/** How far a fault moves a telemetry ts (0: it does not). */
export function timestampShiftMs(f: Fault): number {
  if (f.kind === 'clockSkew') return f.skewMs;
  if (f.kind === 'futureTimestamps') return f.offsetMs ?? DAY_MS;
  if (f.kind === 'pastTimestamps') return -(f.offsetMs ?? 365 * DAY_MS);
  return 0;
}

function targetText(f: Fault): string {
  const who = f.device ?? (f.gateway ? `gateway '${f.gateway}'` : 'every gateway');
  const share = f.share !== undefined && f.share < 1 && !f.device ? `${Math.round(f.share * 100)}% of ` : '';
  return `${share}${f.device ? `device '${who}'` : who}`;
}

/**
 * The faults of a run: what each injected and what the platform answered, and markers of where they
 * started and ended for the live chart. Shared by the run's gateways.
 */
export class FaultBook {
  readonly faults: readonly Fault[];
  private readonly counts: FaultCount[];
  readonly markers = new RingLog<Omit<FaultMarker, 'seq'>>(200);

  constructor(faults: readonly Fault[] = []) {
    this.faults = faults;
    this.counts = faults.map((f, index) => ({
      index,
      kind: f.kind,
      target: targetText(f),
      injected: 0,
      answers: {},
    }));
  }

  injected(index: number, n = 1): void {
    this.counts[index]!.injected += n;
  }

  answered(index: number, answer: string, n = 1): void {
    const a = this.counts[index]!.answers;
    a[answer] = (a[answer] ?? 0) + n;
  }

  mark(index: number, gateway: string, phase: 'start' | 'end', note = ''): void {
    this.markers.push({ ts: Date.now(), index, kind: this.faults[index]!.kind, gateway, phase, note });
  }

  list(): FaultCount[] {
    return this.counts.map((c) => ({ ...c, answers: { ...c.answers } }));
  }

  total(): { injected: number; byKind: Record<string, number> } {
    const byKind: Record<string, number> = {};
    let injected = 0;
    for (const c of this.counts) {
      injected += c.injected;
      byKind[c.kind] = (byKind[c.kind] ?? 0) + c.injected;
    }
    return { injected, byKind };
  }
}

/** One fault as one gateway sees it: its window and the devices it hits (null: the gateway itself). */
export interface GatewayFault {
  index: number;
  fault: Fault;
  startMs: number;
  endMs: number;
  /** the devices it hits; all of them when the fault names none and has no share */
  devices: Set<string>;
  random: Random;
}

/** The faults that concern one gateway, with their windows and devices picked by the seed. */
export function gatewayFaults(
  faults: readonly Fault[],
  gateway: string,
  devices: readonly string[],
  seed: string | number,
): GatewayFault[] {
  const out: GatewayFault[] = [];
  faults.forEach((fault, index) => {
    if (fault.gateway !== undefined && fault.gateway !== gateway) return;
    let hit: string[];
    if (fault.device !== undefined) {
      if (!devices.includes(fault.device)) return;
      hit = [fault.device];
    } else if (fault.share !== undefined && fault.share < 1) {
      const pick = seededRandom(seed, 'fault', index, gateway);
      hit = devices.filter(() => pick() < fault.share!);
    } else {
      hit = [...devices];
    }
    const startMs = fault.atMs ?? 0;
    out.push({
      index,
      fault,
      startMs,
      endMs: startMs + faultDurationMs(fault),
      devices: new Set(hit),
      random: seededRandom(seed, 'fault-draws', index, gateway),
    });
  });
  return out;
}

/** The gateway's faults of a kind active at a moment (ms from the start) for a device. */
export function activeFaults(
  list: readonly GatewayFault[],
  kind: FaultKind,
  elapsedMs: number,
  device?: string,
): GatewayFault[] {
  return list.filter(
    (g) =>
      g.fault.kind === kind &&
      elapsedMs >= g.startMs &&
      elapsedMs < g.endMs &&
      (device === undefined || g.devices.has(device)),
  );
}

/** Whether a fault with a probability strikes this time. */
export function strikes(g: GatewayFault): boolean {
  const p = 'probability' in g.fault ? g.fault.probability : undefined;
  return p === undefined || p >= 1 || g.random() < p;
}

import type { PlatformStats } from '../api/client.ts';

export interface StatsSample {
  ts: number;
  messagesPerSecond: number;
  datapoints: number;
}

const MAX_SAMPLES = 180;

/** The counters pushed since the app opened, for the overview's rate chart (no made-up history). */
export class StatsHistory {
  private samples: StatsSample[] = [];
  private readonly listeners = new Set<() => void>();

  add(stats: PlatformStats): void {
    const sample = { ts: stats.ts, messagesPerSecond: stats.messagesPerSecond, datapoints: stats.datapoints };
    this.samples = [...this.samples.slice(-(MAX_SAMPLES - 1)), sample];
    for (const l of this.listeners) l();
  }

  clear(): void {
    this.samples = [];
    for (const l of this.listeners) l();
  }

  get snapshot(): StatsSample[] {
    return this.samples;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

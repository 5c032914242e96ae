import type { EdgeReceiveFaults } from '../../shared/schemas/edge-simulator.ts';
import { seededRandom, type Random } from './generators.ts';

export type ReceiveFaultKind = 'dropped' | 'duplicated' | 'reordered';

/**
 * Faults on purpose on a simulated edge's receiving side, applied to each pulled batch: some events are lost
 * (the batch is still acknowledged), some swapped with the next one, some handed on twice. Seeded: the same
 * settings and batches give the same faults.
 */
export class ReceiveFaults {
  private settings: EdgeReceiveFaults = {};
  private random: Random = seededRandom(1, 'edge-receive');

  get current(): EdgeReceiveFaults {
    return { ...this.settings };
  }

  set(settings: EdgeReceiveFaults): void {
    this.settings = { ...settings };
    this.random = seededRandom(settings.seed ?? 1, 'edge-receive');
  }

  /** The events handed on; `injected` hears of each fault with the event it hit. */
  apply<T extends { edgeSeq: number }>(
    batch: readonly T[],
    injected: (kind: ReceiveFaultKind, edgeSeq: number) => void,
  ): T[] {
    const { drop = 0, duplicate = 0, reorder = 0 } = this.settings;
    if (drop === 0 && duplicate === 0 && reorder === 0) return [...batch];
    const kept: T[] = [];
    for (const e of batch) {
      if (drop > 0 && this.random() < drop) injected('dropped', e.edgeSeq);
      else kept.push(e);
    }
    // Swapped pairs do not overlap: the lower event of each pair arrives after a higher one.
    for (let i = 0; reorder > 0 && i + 1 < kept.length; i++) {
      if (this.random() >= reorder) continue;
      const a = kept[i]!;
      const b = kept[i + 1]!;
      kept[i] = b;
      kept[i + 1] = a;
      injected('reordered', Math.min(a.edgeSeq, b.edgeSeq));
      i++;
    }
    if (duplicate === 0) return kept;
    const out: T[] = [];
    for (const e of kept) {
      out.push(e);
      if (this.random() < duplicate) {
        out.push(e);
        injected('duplicated', e.edgeSeq);
      }
    }
    return out;
  }
}

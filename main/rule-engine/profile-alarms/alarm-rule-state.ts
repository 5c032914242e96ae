/**
 * One rule of an alarm (a create rule of a severity, or the clear rule) and its progress, as ThingsBoard's
 * AlarmRuleState: SIMPLE holds while the condition does; DURATION once the condition held, message after
 * message, longer than the required time (of the data's own timestamps); REPEATING after the required
 * number of messages in a row. The progress (lastEventTs, duration, eventCount) is what gets persisted.
 */
import type { AlarmSeverity } from '../../../shared/schemas/alarms.ts';
import {
  TIME_UNIT_MS,
  type AlarmRule,
  type ConditionSpec,
  type DynamicValue,
} from '../../../shared/schemas/device-profile-alarms.ts';
import { dynamicValueOf, evalCondition, type DataSnapshot, type DynamicSource } from './condition.ts';
import { asLong } from './key-value.ts';
import { scheduleActive } from './schedule.ts';

export type EvalResult = 'TRUE' | 'FALSE' | 'NOT_YET_TRUE';

/** ThingsBoard's PersistedAlarmRuleState. */
export interface RuleProgress {
  lastEventTs: number;
  duration: number;
  eventCount: number;
}

export const newProgress = (): RuleProgress => ({ lastEventTs: 0, duration: 0, eventCount: 0 });

/** A dynamic count (duration or repeats) that does not read as a whole number. */
export class NumericParseError extends Error {}

export class AlarmRuleState {
  readonly severity: AlarmSeverity | null;
  readonly rule: AlarmRule;
  readonly spec: ConditionSpec;
  /** the keys whose update makes the rule worth evaluating */
  readonly keys: Set<string>;
  progress: RuleProgress;
  private updated = false;
  private readonly source: DynamicSource;

  constructor(
    severity: AlarmSeverity | null,
    rule: AlarmRule,
    keys: Set<string>,
    progress: RuleProgress,
    source: DynamicSource,
  ) {
    this.severity = severity;
    this.rule = rule;
    this.spec = rule.condition.spec ?? { type: 'SIMPLE' };
    this.keys = keys;
    this.progress = progress;
    this.source = source;
  }

  /** Whether one of the updated keys is one this rule reads. */
  concerns(changed: Set<string>): boolean {
    for (const k of changed) if (this.keys.has(k)) return true;
    return false;
  }

  /** true once after the progress changed (it must be persisted). */
  checkUpdate(): boolean {
    const was = this.updated;
    this.updated = false;
    return was;
  }

  clear(): void {
    const p = this.progress;
    if (p.eventCount > 0 || p.lastEventTs > 0 || p.duration > 0) {
      p.eventCount = 0;
      p.lastEventTs = 0;
      p.duration = 0;
      this.updated = true;
    }
  }

  /** The rule judged on a data update. */
  eval(data: DataSnapshot): EvalResult {
    const active = scheduleActive(this.rule.schedule, data.ts, data, this.source);
    const holds = active && evalCondition(this.rule.condition, data, this.source);
    switch (this.spec.type) {
      case 'DURATION': {
        if (!holds) return 'FALSE';
        const p = this.progress;
        if (p.lastEventTs > 0) {
          if (data.ts > p.lastEventTs) {
            p.duration += data.ts - p.lastEventTs;
            p.lastEventTs = data.ts;
            this.updated = true;
          }
        } else {
          p.lastEventTs = data.ts;
          p.duration = 0;
          this.updated = true;
        }
        return p.duration > this.requiredDurationMs(data) ? 'TRUE' : 'NOT_YET_TRUE';
      }
      case 'REPEATING': {
        if (!holds) return 'FALSE';
        this.progress.eventCount++;
        this.updated = true;
        return this.progress.eventCount >= this.requiredRepeats(data) ? 'TRUE' : 'NOT_YET_TRUE';
      }
      default:
        return holds ? 'TRUE' : 'FALSE';
    }
  }

  /** The rule judged by time alone (the periodic check): only a DURATION rule can become true. */
  evalAt(ts: number, data: DataSnapshot): EvalResult {
    if (this.spec.type !== 'DURATION') return this.spec.type === 'SIMPLE' ? 'FALSE' : 'NOT_YET_TRUE';
    const required = this.requiredDurationMs(data);
    const p = this.progress;
    if (required > 0 && p.lastEventTs > 0 && ts > p.lastEventTs) {
      const duration = p.duration + (ts - p.lastEventTs);
      if (!scheduleActive(this.rule.schedule, ts, data, this.source)) return 'FALSE';
      return duration > required ? 'TRUE' : 'NOT_YET_TRUE';
    }
    return 'FALSE';
  }

  private requiredDurationMs(data: DataSnapshot): number {
    if (this.spec.type !== 'DURATION') return 0;
    return this.resolveCount(data, this.spec.predicate) * TIME_UNIT_MS[this.spec.unit];
  }

  private requiredRepeats(data: DataSnapshot): number {
    return this.spec.type === 'REPEATING' ? this.resolveCount(data, this.spec.predicate) : 0;
  }

  private resolveCount(
    data: DataSnapshot,
    pv: { defaultValue: number | null; dynamicValue?: DynamicValue | null },
  ): number {
    const fallback = pv.defaultValue ?? 0;
    const dv = pv.dynamicValue;
    if (!dv?.sourceAttribute) return fallback;
    const kv = dynamicValueOf(data, dv, this.source);
    if (!kv) return fallback;
    const n = asLong(kv);
    if (n === null)
      throw new NumericParseError(
        `Could not convert attribute '${dv.sourceAttribute}' with value '${String(kv.value)}' to numeric value!`,
      );
    return n;
  }
}

/**
 * When an alarm rule is active (ThingsBoard's AlarmSchedule): any time, on some days between two times of
 * day, or per day of the week; in the schedule's time zone; a window whose end is before its start runs
 * over midnight. A dynamic value may hold the schedule (a JSON attribute) in place of the saved one.
 */
import {
  DAY_MS,
  type AlarmSchedule,
  type CustomScheduleItem,
} from '../../../shared/schemas/device-profile-alarms.ts';
import { dynamicValueOf, type DataSnapshot, type DynamicSource } from './condition.ts';

const WEEKDAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };
const MAX_ZONES = 64;
const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone,
        weekday: 'short',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
      });
    } catch {
      f = formatOf('UTC');
    }
    if (formats.size >= MAX_ZONES) formats.clear();
    formats.set(timeZone, f);
  }
  return f;
}

/** The day of the week (1 Monday ... 7 Sunday) and the milliseconds since local midnight. */
export function localTime(ts: number, timeZone: string | undefined): { day: number; msOfDay: number } {
  const parts = formatOf(timeZone || 'UTC').formatToParts(new Date(ts));
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '0';
  const msOfDay =
    (Number(part('hour')) * 3600 + Number(part('minute')) * 60 + Number(part('second'))) * 1000 +
    (((ts % 1000) + 1000) % 1000);
  return { day: WEEKDAYS[part('weekday')] ?? 1, msOfDay };
}

function inWindow(msOfDay: number, startsOn: number, endsOn: number): boolean {
  const end = endsOn === 0 ? DAY_MS : endsOn;
  if (startsOn <= end) return startsOn <= msOfDay && msOfDay < end;
  return startsOn < msOfDay || (msOfDay > 0 && msOfDay < end);
}

const isInt = (v: unknown, min: number, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

/** A schedule a dynamic value holds, when it is one of the saved schedule's type; else null. */
function fromAttribute(json: string, saved: AlarmSchedule): AlarmSchedule | null {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return null;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  const timezone = typeof o.timezone === 'string' ? o.timezone : undefined;
  if (saved.type === 'SPECIFIC_TIME') {
    if (!Array.isArray(o.daysOfWeek) || !o.daysOfWeek.every((d) => isInt(d, 1, 7))) return null;
    if (!isInt(o.startsOn, 0, DAY_MS) || !isInt(o.endsOn, 0, DAY_MS)) return null;
    return {
      type: 'SPECIFIC_TIME',
      timezone: timezone ?? saved.timezone,
      daysOfWeek: o.daysOfWeek as number[],
      startsOn: o.startsOn,
      endsOn: o.endsOn,
    };
  }
  if (saved.type === 'CUSTOM') {
    if (!Array.isArray(o.items)) return null;
    const items = o.items as CustomScheduleItem[];
    if (
      !items.every(
        (i) => i && isInt(i.dayOfWeek, 1, 7) && isInt(i.startsOn, 0, DAY_MS) && isInt(i.endsOn, 0, DAY_MS),
      )
    )
      return null;
    return { type: 'CUSTOM', timezone: timezone ?? saved.timezone, items };
  }
  return null;
}

/** Whether a rule with this schedule is active at ts (0: now). */
export function scheduleActive(
  schedule: AlarmSchedule | null | undefined,
  ts: number,
  data: DataSnapshot,
  source: DynamicSource,
): boolean {
  if (!schedule || schedule.type === 'ANY_TIME') return true;
  const at = ts === 0 ? Date.now() : ts;
  let s: AlarmSchedule = schedule;
  const dynamic = dynamicValueOf(data, schedule.dynamicValue, source);
  if (dynamic && (dynamic.type === 'JSON' || dynamic.type === 'STRING'))
    s = fromAttribute(dynamic.value, schedule) ?? schedule;
  if (s.type === 'SPECIFIC_TIME') {
    const { day, msOfDay } = localTime(at, s.timezone);
    if (s.daysOfWeek.length !== 7 && !s.daysOfWeek.includes(day)) return false;
    return inWindow(msOfDay, s.startsOn, s.endsOn);
  }
  if (s.type === 'CUSTOM') {
    const { day, msOfDay } = localTime(at, s.timezone);
    const item = s.items.find((i) => i.dayOfWeek === day);
    return item ? item.enabled && inWindow(msOfDay, item.startsOn, item.endsOn) : false;
  }
  return true;
}

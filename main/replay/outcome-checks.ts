/**
 * The outcomes a replay checks through the target's REST API: latest values, alarms, RPC answers. A check
 * waits for its outcome (it reads again until it matches or its deadline passes), never a fixed delay, so
 * that it holds at any speed.
 */
import type { RecordOf } from '../../shared/schemas/recording.ts';
import type { ReplayCheck } from '../../shared/schemas/replay.ts';
import { differences, type CompareOptions } from './compare.ts';
import type { TargetRest } from './target-rest.ts';

const POLL_MS = 50;

export type CheckResult = Pick<ReplayCheck, 'expected' | 'actual' | 'mismatches' | 'note'>;

/** Reads until `judge` finds no mismatch or the deadline passes; the last reading's result. */
async function until(deadline: number, read: () => Promise<CheckResult>): Promise<CheckResult> {
  for (;;) {
    const result = await read();
    if (!result.mismatches.length || Date.now() >= deadline) return result;
    await new Promise((r) => setTimeout(r, Math.min(POLL_MS, Math.max(0, deadline - Date.now()))));
  }
}

const q = encodeURIComponent;

export async function checkLatest(
  rest: TargetRest,
  deviceId: string,
  r: RecordOf<'expect.latest'>,
  options: CompareOptions,
  deadline: number,
): Promise<CheckResult> {
  const keys = Object.keys(r.values);
  return until(deadline, async () => {
    const series = await rest.json<Record<string, { ts: number; value: unknown }[]>>(
      'GET',
      `/api/plugins/telemetry/DEVICE/${deviceId}/values/timeseries?keys=${keys.map(q).join(',')}&useStrictDataTypes=true`,
    );
    const actual: Record<string, unknown> = {};
    for (const k of keys) if (series?.[k]?.length) actual[k] = series[k][0]!.value;
    return { expected: r.values, actual, mismatches: differences(r.values, actual, options) };
  });
}

const isCleared = (a: AlarmRow) => a.cleared ?? a.status.startsWith('CLEARED');

export interface AlarmRow {
  id: { id: string };
  type: string;
  severity: string;
  status: string;
  cleared?: boolean;
  createdTime: number;
}

/** Alarms of one device; the replay remembers those there before it, and which raise each check took. */
export class AlarmBook {
  /** per device: the ids of its alarms before the replay, and whether each was active then */
  readonly before = new Map<string, Map<string, boolean>>();
  private readonly taken = new Map<string, string[]>();
  private readonly rest: TargetRest;

  constructor(rest: TargetRest) {
    this.rest = rest;
  }

  async list(deviceId: string): Promise<AlarmRow[]> {
    const page = await this.rest.json<{ data: AlarmRow[] }>(
      'GET',
      `/api/alarm/DEVICE/${deviceId}?pageSize=1000&page=0&sortProperty=createdTime&sortOrder=ASC`,
    );
    return page.data;
  }

  async remember(deviceId: string): Promise<void> {
    this.before.set(deviceId, new Map((await this.list(deviceId)).map((a) => [a.id.id, !isCleared(a)])));
  }

  async check(
    deviceId: string,
    r: RecordOf<'expect.alarm'>,
    options: CompareOptions,
    deadline: number,
  ): Promise<CheckResult> {
    const key = `${deviceId}\u0000${r.type}`;
    const expected: Record<string, unknown> = { type: r.type, event: r.event };
    const fields: Record<string, unknown> = {};
    if (r.severity !== undefined) fields.severity = r.severity;
    if (r.status !== undefined) fields.status = r.status;
    Object.assign(expected, fields);
    const result = await until(deadline, async () => {
      const alarms = (await this.list(deviceId)).filter((a) => a.type === r.type);
      const before = this.before.get(deviceId) ?? new Map<string, boolean>();
      const taken = this.taken.get(key) ?? [];
      let alarm: AlarmRow | undefined;
      let missing: string;
      if (r.event === 'raised') {
        alarm = alarms.find((a) => !before.has(a.id.id) && !taken.includes(a.id.id));
        const active = alarms.find((a) => before.get(a.id.id) && !isCleared(a));
        missing = active
          ? `expected it raised, none was (one was already active before the replay)`
          : 'expected it raised, none was';
      } else {
        const last = taken.at(-1);
        // the alarm this replay raised last, else one that was active before it
        alarm = last ? alarms.find((a) => a.id.id === last) : alarms.findLast((a) => before.get(a.id.id));
        if (r.event === 'cleared' && alarm && !isCleared(alarm)) {
          return {
            expected,
            actual: { type: alarm.type, severity: alarm.severity, status: alarm.status },
            mismatches: [`expected it cleared, it is ${alarm.status}`],
            alarm,
          };
        }
        missing = `expected it ${r.event}, but no such alarm was raised in the replay or active before it`;
      }
      if (!alarm) return { expected, actual: null, mismatches: [missing] };
      const actual = { type: alarm.type, event: r.event, severity: alarm.severity, status: alarm.status };
      return {
        expected,
        actual,
        mismatches: differences({ alarm: fields }, { alarm: actual }, options),
        alarm,
      };
    });
    const alarm = (result as CheckResult & { alarm?: AlarmRow }).alarm;
    if (r.event === 'raised' && alarm) this.taken.set(key, [...(this.taken.get(key) ?? []), alarm.id.id]);
    return { expected: result.expected, actual: result.actual, mismatches: result.mismatches };
  }
}

/** What a REST RPC call got, as the recording says it: SUCCESSFUL with the response, TIMEOUT, FAILED. */
export interface RpcOutcome {
  status: string;
  response: unknown;
}

export function rpcOutcome(httpStatus: number, body: unknown, oneway: boolean): RpcOutcome {
  if (httpStatus === 200) return { status: 'SUCCESSFUL', response: oneway ? undefined : body };
  const message = (body as { message?: unknown } | null)?.message;
  // ThingsBoard answers both with 504 on /api/rpc; its message tells which
  const notTaken = typeof message === 'string' && /did not take|no active|not connected/i.test(message);
  if (httpStatus === 409 || (httpStatus === 504 && notTaken))
    return { status: 'NO_ACTIVE_CONNECTION', response: undefined };
  if (httpStatus === 504 || httpStatus === 408) return { status: 'TIMEOUT', response: undefined };
  return { status: 'FAILED', response: body };
}

export function checkRpc(
  r: RecordOf<'expect.rpc'>,
  outcome: RpcOutcome | undefined,
  options: CompareOptions,
): CheckResult {
  const expected: Record<string, unknown> = {};
  if (r.status !== undefined) expected.status = r.status;
  if (r.response !== undefined) expected.response = r.response;
  if (!outcome) return { expected, actual: null, mismatches: ['no answer came to this RPC request'] };
  const actual = { status: outcome.status, response: outcome.response };
  return { expected, actual, mismatches: differences(expected, actual, options) };
}

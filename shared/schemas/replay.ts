/**
 * A replay of a recording (`sandboard replay`, POST /api/sandboard/replays): its progress, its checks
 * (expected against actual) and its report. Shared: the server answers it, the UI shows it.
 */
import { Type, type Static } from 'typebox';
import { AssertOptions } from './recording.ts';

export const ReplayCheckKind = Type.Union(
  [
    Type.Literal('answer'),
    Type.Literal('latest'),
    Type.Literal('alarm'),
    Type.Literal('rpc'),
    Type.Literal('edgeEvents'),
  ],
  {
    description:
      'answer: an MQTT reason code or HTTP status; latest: stored values; alarm: raised / cleared; rpc: what the REST caller got; edgeEvents: events queued for an edge',
  },
);
export type ReplayCheckKind = 'answer' | 'latest' | 'alarm' | 'rpc' | 'edgeEvents';
export type ReplayCheckState = 'passed' | 'failed' | 'skipped';

export const ReplayCheck = Type.Object({
  device: Type.String({ description: 'the device (or edge) the check is about' }),
  kind: ReplayCheckKind,
  what: Type.String({ description: 'what is checked: "alarm \'High Temperature\' raised"' }),
  t: Type.Number({ description: "the record's time in the recording, ms" }),
  state: Type.Union([Type.Literal('passed'), Type.Literal('failed'), Type.Literal('skipped')]),
  expected: Type.Unknown(),
  actual: Type.Unknown(),
  mismatches: Type.Array(Type.String(), { description: 'each difference, one line each' }),
  note: Type.Optional(Type.String()),
  durationMs: Type.Number({ description: 'how long the check waited for its outcome' }),
});
export interface ReplayCheck {
  device: string;
  kind: ReplayCheckKind;
  what: string;
  t: number;
  state: ReplayCheckState;
  expected: unknown;
  actual: unknown;
  mismatches: string[];
  note?: string;
  durationMs: number;
}

export const ReplayState = Type.Union(
  [
    Type.Literal('running'),
    Type.Literal('passed'),
    Type.Literal('failed'),
    Type.Literal('error'),
    Type.Literal('stopped'),
  ],
  { description: 'passed / failed: every check held or one did not; error: the replay could not run' },
);
export type ReplayState = 'running' | 'passed' | 'failed' | 'error' | 'stopped';

export const ReplayProgress = Type.Object({
  state: ReplayState,
  messagesTotal: Type.Integer({ description: 'the stimuli the recording holds' }),
  messagesSent: Type.Integer(),
  checksTotal: Type.Integer({ description: 'the checks the recording holds (0 without assert)' }),
  checksPassed: Type.Integer(),
  checksFailed: Type.Integer(),
  checksSkipped: Type.Integer(),
  durationMs: Type.Number(),
  error: Type.Optional(Type.String()),
});
export type ReplayProgress = Static<typeof ReplayProgress>;

export const ReplayReport = Type.Object({
  ...ReplayProgress.properties,
  recording: Type.String({ description: "the recording's name" }),
  target: Type.String({ description: 'the HTTP URL replayed against' }),
  speed: Type.String({ description: '1, N (times faster) or max' }),
  assert: Type.Boolean(),
  startedAt: Type.Integer(),
  checks: Type.Array(ReplayCheck, {
    description: 'each outcome check, and each answer that differed (at most MAX_REPLAY_CHECKS)',
  }),
  checksOmitted: Type.Integer({ description: 'checks beyond the bound, counted only' }),
  answers: Type.Array(
    Type.Object({ device: Type.String(), passed: Type.Integer(), failed: Type.Integer() }),
    { description: 'per device: the reason codes and statuses that were as recorded, or not' },
  ),
  notes: Type.Array(Type.String()),
});
export type ReplayReport = Static<typeof ReplayReport> & { checks: ReplayCheck[] };

/** The checks a report lists one by one; beyond it they are counted. */
export const MAX_REPLAY_CHECKS = 5000;

export const ReplaySpeed = Type.Union(
  [Type.Number({ exclusiveMinimum: 0, maximum: 10_000 }), Type.Literal('max')],
  {
    description: '1 real time, N times faster, max as fast as the target takes it',
  },
);
export type ReplaySpeed = number | 'max';

export const StartReplayRequest = Type.Object(
  {
    recordingId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    file: Type.Optional(Type.String({ maxLength: 64 * 1024 * 1024, description: "the recording's text" })),
    speed: Type.Optional(ReplaySpeed),
    assert: Type.Optional(Type.Boolean({ default: true })),
    options: Type.Optional(AssertOptions),
  },
  { additionalProperties: false, description: 'a recording (by id or its text) and how to replay it' },
);
export type StartReplayRequest = Static<typeof StartReplayRequest>;

export const ReplayRun = Type.Object({
  id: Type.String(),
  recording: Type.String(),
  speed: Type.String(),
  assert: Type.Boolean(),
  startedAt: Type.Integer(),
  progress: ReplayProgress,
  report: Type.Optional(ReplayReport),
});
export type ReplayRun = Static<typeof ReplayRun> & { report?: ReplayReport };

import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  describeRecordingIssue,
  parseRecording,
  type AssertOptions,
  type ParsedRecording,
} from '../../shared/schemas/recording.ts';
import type { ReplayCheck, ReplayReport, ReplaySpeed } from '../../shared/schemas/replay.ts';
import { ReplayRefusedError } from './prepare-target.ts';
import { replayJunitXml } from './replay-junit.ts';
import { replayRecording } from './replay-run.ts';
import { TargetHttpError, type TargetAuth } from './target-rest.ts';

/** A recording larger than this is refused. */
export const RECORDING_FILE_MAX_BYTES = 512 * 1024 * 1024;

export const REPLAY_USAGE = `Usage: sandboard replay FILE --http URL --mqtt URL (--username U --password P | --api-key K)
                        [--speed 1|N|max] [--assert] [--ignore PATH]... [--tolerance N|KEY=N]...
                        [--timeout MS] [--report junit.xml]

Replays a recording (docs/recordings.md) against a Sandboard or a real ThingsBoard: devices missing there
are created through its REST API with the recorded profile; devices publish over MQTT with their tokens,
gateways through the gateway API, server-side RPC and shared attributes go through REST, and each
replayed device answers its RPC requests as recorded.
  --http URL          the target's HTTP base URL (REST API, device HTTP API): http://localhost:8080
  --mqtt URL          the target's MQTT broker: mqtt://localhost:1883
  --username, --password   a tenant administrator's login (POST /api/auth/login)
  --api-key KEY       or an API key (X-Authorization: ApiKey KEY)
  --speed S           1 real time (default), N times faster, or max: as fast as the target takes it
  --assert            check the outcomes: reason codes, HTTP statuses, latest values, alarms, RPC answers
  --ignore PATH       do not compare PATH (a key, alarm.severity, response.ts); repeatable
  --tolerance N       numbers within N match; KEY=N for one key or path; repeatable
  --timeout MS        how long a check waits for its outcome (default 10000)
  --report FILE       also write a JUnit XML report to FILE
Exit code: 0 replayed (and every check passed), 1 a check failed (each mismatch is named) or the target
failed, 2 the file is malformed, newer, or names what the target lacks (nothing was written).
`;

export class ReplayUsageError extends Error {}

export interface ReplayArgs {
  file: string;
  http: string;
  mqtt: string;
  auth: TargetAuth;
  speed: ReplaySpeed;
  assert: boolean;
  flags: AssertOptions;
  checkTimeoutMs: number;
  report: string | undefined;
}

export function parseSpeed(text: string): ReplaySpeed {
  if (text === 'max') return 'max';
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0 || n > 10_000)
    throw new ReplayUsageError(`--speed must be max or a number above 0 (at most 10000), got '${text}'`);
  return n;
}

function parseTolerances(values: string[]): AssertOptions['tolerance'] {
  if (!values.length) return undefined;
  const byKey: Record<string, number> = {};
  for (const v of values) {
    const eq = v.lastIndexOf('=');
    const key = eq < 0 ? '*' : v.slice(0, eq);
    const n = Number(eq < 0 ? v : v.slice(eq + 1));
    if (!key || !Number.isFinite(n) || n < 0)
      throw new ReplayUsageError(`--tolerance must be N or KEY=N with N a number of 0 or more, got '${v}'`);
    byKey[key] = n;
  }
  const keys = Object.keys(byKey);
  return keys.length === 1 && keys[0] === '*' ? byKey['*'] : byKey;
}

function url(value: string | undefined, flag: string, schemes: string[]): string {
  if (!value) throw new ReplayUsageError(`--${flag} is required`);
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ReplayUsageError(`--${flag} must be a URL (${schemes.join(' or ')}), got '${value}'`);
  }
  if (!schemes.includes(parsed.protocol.slice(0, -1)))
    throw new ReplayUsageError(`--${flag} must be a ${schemes.join(' or ')} URL, got '${value}'`);
  return value.replace(/\/+$/, '');
}

export function parseReplayArgs(argv: string[]): ReplayArgs {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      http: { type: 'string' },
      mqtt: { type: 'string' },
      username: { type: 'string' },
      password: { type: 'string' },
      'api-key': { type: 'string' },
      speed: { type: 'string' },
      assert: { type: 'boolean' },
      ignore: { type: 'string', multiple: true },
      tolerance: { type: 'string', multiple: true },
      timeout: { type: 'string' },
      report: { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new ReplayUsageError('replay needs one recording file');
  let auth: TargetAuth;
  if (values['api-key'] !== undefined) {
    if (values.username !== undefined)
      throw new ReplayUsageError('give --api-key or --username/--password, not both');
    auth = { apiKey: values['api-key'] };
  } else if (values.username !== undefined && values.password !== undefined)
    auth = { username: values.username, password: values.password };
  else throw new ReplayUsageError('give --username and --password, or --api-key');
  const timeout = Number(values.timeout ?? 10_000);
  if (!Number.isInteger(timeout) || timeout < 0 || timeout > 3_600_000)
    throw new ReplayUsageError(`--timeout must be milliseconds from 0 to 3600000, got '${values.timeout}'`);
  const tolerance = parseTolerances(values.tolerance ?? []);
  return {
    file: positionals[0]!,
    http: url(values.http, 'http', ['http', 'https']),
    mqtt: url(values.mqtt, 'mqtt', ['mqtt', 'mqtts']),
    auth,
    speed: parseSpeed(values.speed ?? '1'),
    assert: values.assert ?? false,
    flags: {
      ...(values.ignore?.length ? { ignore: values.ignore } : {}),
      ...(tolerance !== undefined ? { tolerance } : {}),
    },
    checkTimeoutMs: timeout,
    report: values.report,
  };
}

/** Reads and checks a recording file; every problem named by line and path. */
export function readRecordingFile(path: string): ParsedRecording {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (err) {
    throw new ReplayRefusedError(
      `${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  if (size > RECORDING_FILE_MAX_BYTES)
    throw new ReplayRefusedError(
      `${path}: is ${size} bytes, more than the ${RECORDING_FILE_MAX_BYTES} allowed`,
    );
  const { recording, issues } = parseRecording(readFileSync(path, 'utf8'));
  if (!recording)
    throw new ReplayRefusedError(
      `${path} is not a recording this Sandboard can replay:\n${issues.map((i) => `  ${describeRecordingIssue(i)}`).join('\n')}`,
    );
  return recording;
}

const shown = (v: unknown) => (v === undefined ? 'nothing' : JSON.stringify(v));

export function checkLines(c: ReplayCheck): string {
  const head = `${c.state === 'passed' ? 'PASS' : c.state === 'failed' ? 'FAIL' : 'SKIP'}  ${c.device}: ${c.what} (at ${c.t} ms)`;
  if (c.state === 'skipped') return `${head}: ${c.note ?? 'skipped'}\n`;
  if (c.state === 'passed') return `${head}\n`;
  return (
    [
      head,
      ...c.mismatches.map((m) => `        ${m}`),
      `        expected ${shown(c.expected)}`,
      `        actual   ${shown(c.actual)}`,
    ].join('\n') + '\n'
  );
}

export function summaryLine(r: ReplayReport): string {
  const seconds = r.durationMs / 1000;
  const rate = seconds > 0 ? Math.round(r.messagesSent / seconds) : r.messagesSent;
  const checks = r.assert
    ? `; checks: ${r.checksPassed} passed, ${r.checksFailed} failed${r.checksSkipped ? `, ${r.checksSkipped} skipped` : ''}`
    : '';
  return `${r.messagesSent} of ${r.messagesTotal} messages sent in ${seconds.toFixed(1)} s (${rate}/s)${checks}`;
}

/** `sandboard replay`: its exit code. */
export async function runReplayCommand(
  argv: string[],
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    out.write(REPLAY_USAGE);
    return 0;
  }
  let args: ReplayArgs;
  try {
    args = parseReplayArgs(argv);
  } catch (e) {
    err.write(`${(e as Error).message}\n\n${REPLAY_USAGE}`);
    return 2;
  }
  let report: ReplayReport;
  try {
    const recording = readRecordingFile(args.file);
    out.write(
      `Replaying '${recording.header.name ?? args.file}' against ${args.http} at speed ${args.speed}${args.assert ? ', with assertions' : ''}\n`,
    );
    report = await replayRecording(recording, {
      http: args.http,
      mqtt: args.mqtt,
      auth: args.auth,
      speed: args.speed,
      assert: args.assert,
      flags: args.flags,
      checkTimeoutMs: args.checkTimeoutMs,
    });
  } catch (e) {
    if (e instanceof ReplayRefusedError) {
      err.write(`sandboard replay: ${e.message}\n`);
      return 2;
    }
    if (e instanceof TargetHttpError && (e.status === 401 || e.status === 403)) {
      err.write(`sandboard replay: the target refused the login or key (${e.message})\n`);
      return 2;
    }
    err.write(`sandboard replay: ${(e as Error).message}\n`);
    return 1;
  }
  for (const c of report.checks) if (c.state !== 'passed' || c.kind !== 'answer') out.write(checkLines(c));
  for (const note of report.notes) out.write(`note: ${note}\n`);
  if (report.checksOmitted) out.write(`(${report.checksOmitted} more checks counted, not listed)\n`);
  if (args.report) {
    try {
      writeFileSync(args.report, replayJunitXml(report));
    } catch (e) {
      err.write(
        `sandboard replay: the report cannot be written to ${args.report}: ${(e as Error).message}\n`,
      );
      return 2;
    }
  }
  out.write(`${summaryLine(report)}${args.report ? ` (JUnit report: ${args.report})` : ''}\n`);
  return report.checksFailed ? 1 : 0;
}

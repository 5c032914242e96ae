/**
 * A replay: a recording's traffic sent again to a ThingsBoard (a Sandboard or a real one) through its
 * protocols only (MQTT with device tokens, the gateway MQTT API, the device HTTP API, REST for RPC and
 * shared attributes), at the recorded pace, N times faster or as fast as the target takes it; with assert,
 * the outcomes checked against the recorded ones.
 *
 * Each connection (a device, or a gateway with its devices) sends its records in order; a check waits for
 * the publishes before it to be answered and then for its outcome, so that checks hold at any speed while
 * connections run side by side.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  AssertOptions,
  ParsedRecording,
  RecordingRecord,
  RecordOf,
} from '../../shared/schemas/recording.ts';
import {
  MAX_REPLAY_CHECKS,
  type ReplayCheck,
  type ReplayCheckKind,
  type ReplayProgress,
  type ReplayReport,
  type ReplaySpeed,
} from '../../shared/schemas/replay.ts';
import { differences, mergeAssertOptions } from './compare.ts';
import {
  AlarmBook,
  checkLatest,
  checkRpc,
  rpcOutcome,
  type CheckResult,
  type RpcOutcome,
} from './outcome-checks.ts';
import { prepareTarget, type TargetDevice } from './prepare-target.ts';
import { isStimulus, planReplay, takeAnswer, type ReplayPlan } from './replay-plan.ts';
import { ReplaySession, type Answer } from './replay-session.ts';
import { edgeEventsReader, isSandboard } from './edge-events.ts';
import { connectTargetRest, type TargetAuth, type TargetRest } from './target-rest.ts';

export interface ReplayOptions {
  /** the target's HTTP base URL (REST API and device HTTP API) */
  http: string;
  /** the target's MQTT URL: mqtt://host:port */
  mqtt: string;
  auth: TargetAuth;
  speed: ReplaySpeed;
  assert: boolean;
  /** --ignore and --tolerance: over the file's own */
  flags?: AssertOptions;
  /** how long a check waits for its outcome (default 10 s) */
  checkTimeoutMs?: number;
  /** the timeout given with each REST RPC call (default 10 s) */
  rpcTimeoutMs?: number;
  /** unacknowledged publishes per connection (default 100) */
  window?: number;
  onProgress?: (progress: ReplayProgress) => void;
  signal?: AbortSignal;
}

type EdgeEventsReader = ReturnType<typeof edgeEventsReader>;

const PROGRESS_EVERY_MS = 200;
/** latest-value checks of one connection read at once */
const SIDE_BY_SIDE_CHECKS = 8;

const q = (n: number) => `0x${n.toString(16).padStart(2, '0')}`;
const describeAnswer = (a: Answer, http = false) =>
  a.code === -1
    ? `no answer (${a.reason ?? 'connection lost'})`
    : http
      ? String(a.code)
      : `${a.code} (${q(a.code)})`;

class Replay {
  private readonly plan: ReplayPlan;
  private readonly options: ReplayOptions;
  private readonly rest: TargetRest;
  private readonly targets: Map<string, TargetDevice>;
  private readonly sessions = new Map<string, ReplaySession>();
  private readonly rpcCalls = new Map<string, Promise<RpcOutcome>>();
  private readonly alarms: AlarmBook;
  private readonly header: ParsedRecording['header'];
  readonly progress: ReplayProgress;
  readonly checks: ReplayCheck[] = [];
  checksOmitted = 0;
  readonly answers = new Map<string, { passed: number; failed: number }>();
  readonly notes = new Set<string>();
  private started = 0;
  private readonly edgeEvents: EdgeEventsReader | undefined;
  private lastProgress = 0;

  constructor(
    recording: ParsedRecording,
    plan: ReplayPlan,
    rest: TargetRest,
    targets: Map<string, TargetDevice>,
    options: ReplayOptions,
    edgeEvents: EdgeEventsReader | undefined,
  ) {
    this.edgeEvents = edgeEvents;
    this.header = recording.header;
    this.plan = plan;
    this.rest = rest;
    this.targets = targets;
    this.options = options;
    this.alarms = new AlarmBook(rest);
    this.progress = {
      state: 'running',
      messagesTotal: plan.messagesTotal,
      messagesSent: 0,
      checksTotal: plan.checksTotal,
      checksPassed: 0,
      checksFailed: 0,
      checksSkipped: 0,
      durationMs: 0,
    };
  }

  private tick(force = false): void {
    this.progress.durationMs = this.started ? performance.now() - this.started : 0;
    const now = Date.now();
    if (!force && now - this.lastProgress < PROGRESS_EVERY_MS) return;
    this.lastProgress = now;
    this.options.onProgress?.({ ...this.progress });
  }

  private sent(): void {
    this.progress.messagesSent++;
    this.tick();
  }

  private count(state: ReplayCheck['state']): void {
    if (state === 'passed') this.progress.checksPassed++;
    else if (state === 'failed') this.progress.checksFailed++;
    else this.progress.checksSkipped++;
    this.tick();
  }

  private keep(check: ReplayCheck): void {
    if (this.checks.length < MAX_REPLAY_CHECKS) this.checks.push(check);
    else this.checksOmitted++;
  }

  private answerCheck(
    device: string,
    t: number,
    what: string,
    expected: number,
    actual: Answer,
    http = false,
  ) {
    const passed =
      actual.code === expected || (!http && expected < 0x80 && actual.code >= 0 && actual.code < 0x80);
    const tally = this.answers.get(device) ?? { passed: 0, failed: 0 };
    tally[passed ? 'passed' : 'failed']++;
    this.answers.set(device, tally);
    this.count(passed ? 'passed' : 'failed');
    if (passed) return;
    this.keep({
      device,
      kind: 'answer',
      what,
      t,
      state: 'failed',
      expected: http ? expected : `${expected} (${q(expected)})`,
      actual: describeAnswer(actual, http),
      mismatches: [
        `expected ${http ? expected : `${expected} (${q(expected)})`}, got ${describeAnswer(actual, http)}`,
      ],
      durationMs: 0,
    });
  }

  private async outcome(
    device: string,
    kind: ReplayCheckKind,
    what: string,
    t: number,
    run: () => Promise<CheckResult | 'skipped'>,
    note?: string,
  ): Promise<void> {
    const start = performance.now();
    let result: CheckResult | 'skipped';
    try {
      result = await run();
    } catch (err) {
      result = {
        expected: undefined,
        actual: undefined,
        mismatches: [`cannot be read: ${(err as Error).message}`],
      };
    }
    const durationMs = performance.now() - start;
    if (result === 'skipped') {
      this.count('skipped');
      this.keep({
        device,
        kind,
        what,
        t,
        state: 'skipped',
        expected: null,
        actual: null,
        mismatches: [],
        durationMs,
        ...(note ? { note } : {}),
      });
      return;
    }
    const state = result.mismatches.length ? 'failed' : 'passed';
    this.count(state);
    this.keep({ device, kind, what, t, state, ...result, durationMs });
  }

  private targetOf(device: string): TargetDevice {
    return this.targets.get(device)!;
  }

  private deadline(): number {
    return Date.now() + (this.options.checkTimeoutMs ?? 10_000);
  }

  private async session(owner: string, connect?: RecordOf<'mqtt.connect'>): Promise<ReplaySession> {
    const existing = this.sessions.get(owner);
    if (existing?.connected && !connect) return existing;
    if (existing) await existing.close();
    const planned = this.plan.devices.get(owner)!;
    const target = this.targetOf(owner);
    const session = new ReplaySession({
      url: this.options.mqtt,
      token: target.token ?? '',
      ...(connect?.clientId !== undefined ? { clientId: connect.clientId } : {}),
      ...(connect?.protocolVersion !== undefined ? { protocolVersion: connect.protocolVersion } : {}),
      gateway: planned.gateway,
      window: this.options.window ?? 100,
      onRpc: (device, method) => takeAnswer(this.plan, device ?? owner, method)?.response,
    });
    this.sessions.set(owner, session);
    const answer = await session.connect();
    if (connect?.expect?.reasonCode !== undefined && this.options.assert)
      this.answerCheck(owner, connect.t, 'CONNACK', connect.expect.reasonCode, answer);
    else if (answer.code !== 0) throw new Error(`'${owner}' cannot connect: ${describeAnswer(answer)}`);
    if (answer.code === 0 && planned.gateway) {
      // the devices behind a gateway are announced before their traffic, as a gateway does
      for (const d of this.plan.devices.values())
        if (d.via === owner)
          await (
            await session.publish(
              'v1/gateway/connect',
              JSON.stringify({ device: d.name, ...(d.type ? { type: d.type } : {}) }),
              { qos: 1 },
            )
          ).answer;
    }
    return session;
  }

  private async publish(owner: string, r: RecordOf<'mqtt.publish'>): Promise<void> {
    const session = await this.session(owner);
    const payload =
      r.payloadBase64 !== undefined ? Buffer.from(r.payloadBase64, 'base64') : (r.payload ?? '');
    const { answer } = await session.publish(r.topic, payload, {
      qos: r.qos,
      retain: r.retain ?? false,
      ...(r.properties && session.protocolVersion === 5 ? { properties: r.properties } : {}),
    });
    this.sent();
    const expected = r.expect?.reasonCode;
    if (expected !== undefined && r.qos > 0 && this.options.assert)
      void answer.then((a) => this.answerCheck(r.device, r.t, `PUBACK of ${r.topic}`, expected, a));
  }

  private async http(r: RecordOf<'http.request'>): Promise<void> {
    const token = this.targetOf(r.device).token ?? '';
    const url = `${this.options.http.replace(/\/+$/, '')}${r.path.replaceAll('{token}', encodeURIComponent(token))}`;
    let answer: Answer;
    try {
      const res = await fetch(url, {
        method: r.method,
        ...(r.body !== undefined
          ? { body: r.body, headers: { 'content-type': r.contentType ?? 'application/json' } }
          : {}),
        signal: AbortSignal.timeout(60_000),
      });
      await res.arrayBuffer();
      answer = { code: res.status };
    } catch (err) {
      answer = { code: -1, reason: (err as Error).message };
    }
    this.sent();
    if (r.expect?.status !== undefined && this.options.assert)
      this.answerCheck(r.device, r.t, `${r.method} ${r.path}`, r.expect.status, answer, true);
  }

  private rpc(owner: string, r: RecordOf<'rpc.request'>): Promise<void> {
    return this.session(owner).then(() => {
      const id = this.targetOf(r.device).id;
      const timeout = this.options.rpcTimeoutMs ?? 10_000;
      const call = this.rest
        .request(
          'POST',
          `/api/rpc/${r.oneway ? 'oneway' : 'twoway'}/${id}`,
          { method: r.method, params: r.params ?? {}, timeout },
          { timeoutMs: timeout + 30_000 },
        )
        .then(
          (res) => rpcOutcome(res.status, res.body, r.oneway ?? false),
          (err: Error) => ({ status: 'FAILED', response: err.message }),
        );
      this.rpcCalls.set(`${r.device}\u0000${String(r.id)}`, call);
      this.sent();
    });
  }

  private async attributes(r: RecordOf<'attributes.update'>): Promise<void> {
    const path = `/api/plugins/telemetry/DEVICE/${this.targetOf(r.device).id}/${r.scope}`;
    if (Object.keys(r.values).length) await this.rest.json('POST', path, r.values);
    if (r.deleted?.length)
      await this.rest.json('DELETE', `${path}?keys=${r.deleted.map(encodeURIComponent).join(',')}`);
    this.sent();
  }

  private optionsFor(r: { ignore?: string[]; tolerance?: AssertOptions['tolerance'] }) {
    return mergeAssertOptions(
      this.header.assert,
      {
        ...(r.ignore ? { ignore: r.ignore } : {}),
        ...(r.tolerance !== undefined ? { tolerance: r.tolerance } : {}),
      },
      this.options.flags,
    );
  }

  private async expectation(r: RecordingRecord): Promise<void> {
    switch (r.kind) {
      case 'expect.latest':
        return this.outcome(r.device, 'latest', `latest ${Object.keys(r.values).join(', ')}`, r.t, () =>
          checkLatest(this.rest, this.targetOf(r.device).id, r, this.optionsFor(r), this.deadline()),
        );
      case 'expect.alarm':
        return this.outcome(r.device, 'alarm', `alarm '${r.type}' ${r.event}`, r.t, () =>
          this.alarms.check(this.targetOf(r.device).id, r, this.optionsFor(r), this.deadline()),
        );
      case 'expect.rpc':
        return this.outcome(r.device, 'rpc', `RPC ${r.method} (id ${String(r.id)})`, r.t, async () => {
          const call = this.rpcCalls.get(`${r.device}\u0000${String(r.id)}`);
          return checkRpc(r, call ? await call : await this.deviceRpcAnswer(r), this.optionsFor(r));
        });
      case 'expect.edgeEvents': {
        const read = this.edgeEvents!;
        const expected = { count: r.count, ...(r.types ? { types: r.types } : {}) };
        return this.outcome(r.edge, 'edgeEvents', 'edge events queued', r.t, async () => {
          const deadline = this.deadline();
          for (;;) {
            const actual = await read(r.edge);
            const mismatches = actual
              ? differences(expected, { count: actual.count, types: actual.types }, this.optionsFor({}))
              : [`there is no edge '${r.edge}'`];
            if (!mismatches.length || Date.now() >= deadline)
              return { expected, actual: actual ?? null, mismatches };
            await new Promise((res) => setTimeout(res, 50));
          }
        });
      }
    }
  }

  /** The platform's answer to a device's own RPC request, as the replayed device received it. */
  private async deviceRpcAnswer(r: RecordOf<'expect.rpc'>): Promise<RpcOutcome | undefined> {
    const session = this.sessions.get(this.plan.devices.get(r.device)?.via ?? r.device);
    const deadline = this.deadline();
    for (;;) {
      const text = session?.deviceRpcAnswers.get(String(r.id));
      if (text !== undefined) {
        let response: unknown = text;
        if (typeof r.response !== 'string')
          try {
            response = JSON.parse(text) as unknown;
          } catch {
            // a text answer stays text
          }
        return { status: 'SUCCESSFUL', response };
      }
      if (!session || Date.now() >= deadline) return undefined;
      await new Promise((res) => setTimeout(res, 50));
    }
  }

  private async runQueue(owner: string, records: RecordingRecord[]): Promise<void> {
    const speed = this.options.speed;
    // latest values checked one after the other (nothing sent between them) are read side by side
    let side: Promise<void>[] = [];
    const settle = async () => {
      await Promise.all(side);
      side = [];
    };
    for (const r of records) {
      if (this.options.signal?.aborted) break;
      if (speed !== 'max') {
        const due = this.started + r.t / speed - performance.now();
        if (due > 0) await sleep(due, undefined, { signal: this.options.signal }).catch(() => undefined);
        if (this.options.signal?.aborted) break;
      }
      if (r.kind === 'expect.latest' && this.options.assert) {
        await this.sessions.get(owner)?.drain();
        side.push(this.expectation(r));
        if (side.length >= SIDE_BY_SIDE_CHECKS) await settle();
        continue;
      }
      await settle();
      switch (r.kind) {
        case 'mqtt.connect':
          if (this.plan.devices.get(r.device)?.via === undefined) await this.session(owner, r);
          break;
        case 'mqtt.disconnect':
          if (r.device === owner) await this.sessions.get(owner)?.close();
          break;
        case 'mqtt.publish':
          if (isStimulus(r)) await this.publish(owner, r);
          break;
        case 'http.request':
          await this.http(r);
          break;
        case 'rpc.request':
          if (r.origin === 'server') await this.rpc(owner, r);
          break;
        case 'attributes.update':
          await this.attributes(r);
          break;
        case 'expect.latest':
        case 'expect.alarm':
        case 'expect.rpc':
        case 'expect.edgeEvents':
          if (!this.options.assert) break;
          await this.sessions.get(owner)?.drain();
          if (r.kind === 'expect.edgeEvents' && !this.edgeEvents) {
            const note = 'edge events are checked only when replaying on a Sandboard';
            await this.outcome(r.edge, 'edgeEvents', 'edge events queued', r.t, async () => 'skipped', note);
            this.notes.add(`${note}: skipped`);
          } else await this.expectation(r);
          break;
      }
    }
    await settle();
  }

  async run(): Promise<void> {
    if (this.options.assert)
      for (const queue of this.plan.queues.values())
        for (const r of queue)
          if (r.kind === 'expect.alarm' && !this.alarms.before.has(this.targetOf(r.device).id))
            await this.alarms.remember(this.targetOf(r.device).id);
    this.started = performance.now();
    this.tick(true);
    await Promise.all([...this.plan.queues].map(([owner, records]) => this.runQueue(owner, records)));
    await Promise.all([...this.sessions.values()].map((s) => s.drain()));
    await Promise.all(this.rpcCalls.values());
    for (const s of this.sessions.values()) await s.close();
    this.tick(true);
  }

  async close(): Promise<void> {
    for (const s of this.sessions.values()) await s.close();
  }
}

export function speedText(speed: ReplaySpeed): string {
  return speed === 'max' ? 'max' : String(speed);
}

/**
 * Replays a recording: devices missing on the target are created first (a recording the target cannot
 * take is refused by a ReplayRefusedError before anything is written), then the traffic is sent and,
 * with assert, the outcomes checked.
 */
export interface PreparedReplay {
  messagesTotal: number;
  checksTotal: number;
  /** sends the traffic and checks the outcomes */
  run(): Promise<ReplayReport>;
}

/**
 * Reads the target and creates the devices missing there (a recording the target cannot take is refused
 * by a ReplayRefusedError before anything is written); the replay is then ready to run.
 */
export async function prepareReplay(
  recording: ParsedRecording,
  options: ReplayOptions,
): Promise<PreparedReplay> {
  const plan = planReplay(recording, options.assert);
  const rest = await connectTargetRest(options.http, options.auth);
  const targets = await prepareTarget(rest, plan);
  const edgeChecks = options.assert && [...plan.queues.keys()].some((k) => k.startsWith('\u0000edge '));
  let startedAt = Date.now();
  // edge events are checked only on a Sandboard (ThingsBoard's edge queue is not the same)
  const edgeEvents =
    edgeChecks && (await isSandboard(rest)) ? edgeEventsReader(rest, () => startedAt) : undefined;
  const replay = new Replay(recording, plan, rest, targets, options, edgeEvents);
  return {
    messagesTotal: plan.messagesTotal,
    checksTotal: plan.checksTotal,
    async run() {
      startedAt = Date.now();
      try {
        await replay.run();
      } finally {
        await replay.close();
      }
      const p = replay.progress;
      p.state = options.signal?.aborted ? 'stopped' : p.checksFailed ? 'failed' : 'passed';
      const created = [...targets.values()].filter((d) => d.created).length;
      const notes = [...replay.notes];
      if (created) notes.unshift(`${created} device(s) created on the target`);
      options.onProgress?.({ ...p });
      return {
        ...p,
        recording: recording.header.name ?? recording.header.id ?? 'recording',
        target: options.http,
        speed: speedText(options.speed),
        assert: options.assert,
        startedAt,
        checks: replay.checks.sort((a, b) => a.t - b.t),
        checksOmitted: replay.checksOmitted,
        answers: [...replay.answers].map(([device, a]) => ({ device, ...a })),
        notes,
      };
    },
  };
}

/** Prepares and runs a replay. */
export async function replayRecording(
  recording: ParsedRecording,
  options: ReplayOptions,
): Promise<ReplayReport> {
  return (await prepareReplay(recording, options)).run();
}

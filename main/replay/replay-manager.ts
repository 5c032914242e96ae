/**
 * Replays started from the UI (POST /api/sandboard/replays): each runs against this Sandboard through its
 * own protocols on loopback, as the caller (its X-Authorization header), with live progress and, when it
 * ends, its report. The last few runs are kept.
 */
import { randomUUID } from 'node:crypto';
import {
  describeRecordingIssue,
  parseRecording,
  type AssertOptions,
  type RecordingIssue,
} from '../../shared/schemas/recording.ts';
import type { ReplayProgress, ReplayRun, ReplaySpeed } from '../../shared/schemas/replay.ts';
import { ReplayRefusedError } from './prepare-target.ts';
import { prepareReplay, speedText } from './replay-run.ts';

/** Runs kept (finished ones beyond it are forgotten, oldest first). */
const MAX_RUNS = 20;
/** Replays running at once. */
const MAX_RUNNING = 2;

export interface ReplayManagerDeps {
  /** this Sandboard's HTTP and MQTT URLs, once it listens */
  urls: () => { http: string; mqtt: string } | undefined;
  /** a saved recording's text by id (the Recordings page), where recordings are kept */
  readRecording?: (id: string) => Promise<string | undefined>;
}

export interface StartReplay {
  recordingId?: string;
  file?: string;
  speed?: ReplaySpeed;
  assert?: boolean;
  options?: AssertOptions;
}

/** A request that cannot be replayed: 400 with this message (404 when the recording is not found). */
export class ReplayRequestError extends Error {
  readonly status: 400 | 404 | 409;
  readonly issues: RecordingIssue[];
  constructor(message: string, status: 400 | 404 | 409 = 400, issues: RecordingIssue[] = []) {
    super(message);
    this.status = status;
    this.issues = issues;
  }
}

interface Entry {
  run: ReplayRun;
  abort: AbortController;
}

export class ReplayManager {
  private readonly runs = new Map<string, Entry>();
  private readonly deps: ReplayManagerDeps;

  constructor(deps: ReplayManagerDeps) {
    this.deps = deps;
  }

  private async text(request: StartReplay): Promise<string> {
    if (request.file !== undefined) return request.file;
    if (request.recordingId === undefined)
      throw new ReplayRequestError('give recordingId or file (the recording as text)');
    const text = await this.deps.readRecording?.(request.recordingId);
    if (text === undefined)
      throw new ReplayRequestError(`Recording ${request.recordingId} is not found`, 404);
    return text;
  }

  /** Reads the recording, prepares the target (creating missing devices), and starts; refused with a reason. */
  async start(request: StartReplay, authorization: string): Promise<ReplayRun> {
    const running = [...this.runs.values()].filter((e) => e.run.progress.state === 'running').length;
    if (running >= MAX_RUNNING)
      throw new ReplayRequestError(`${running} replays are running: wait for one to end or stop it`, 409);
    const { recording, issues } = parseRecording(await this.text(request));
    if (!recording)
      throw new ReplayRequestError(
        `The recording cannot be replayed: ${issues.map(describeRecordingIssue).join('; ')}`,
        400,
        issues,
      );
    const urls = this.deps.urls();
    if (!urls) throw new ReplayRequestError('The platform is not listening yet', 409);
    const speed = request.speed ?? 'max';
    const assert = request.assert ?? true;
    const abort = new AbortController();
    const entry: Entry = {
      abort,
      run: {
        id: randomUUID(),
        recording: recording.header.name ?? recording.header.id ?? 'recording',
        speed: speedText(speed),
        assert,
        startedAt: Date.now(),
        progress: emptyProgress(),
      },
    };
    let prepared: Awaited<ReturnType<typeof prepareReplay>>;
    try {
      prepared = await prepareReplay(recording, {
        http: urls.http,
        mqtt: urls.mqtt,
        auth: { authorization },
        speed,
        assert,
        ...(request.options ? { flags: request.options } : {}),
        signal: abort.signal,
        onProgress: (p: ReplayProgress) => (entry.run.progress = p),
      });
    } catch (err) {
      if (err instanceof ReplayRefusedError) throw new ReplayRequestError(err.message);
      throw err;
    }
    entry.run.progress = {
      ...entry.run.progress,
      messagesTotal: prepared.messagesTotal,
      checksTotal: prepared.checksTotal,
    };
    this.keep(entry);
    prepared.run().then(
      (report) => {
        entry.run.report = report;
        entry.run.progress = { ...entry.run.progress, ...pickProgress(report) };
      },
      (err: Error) => {
        entry.run.progress = { ...entry.run.progress, state: 'error', error: err.message };
      },
    );
    return entry.run;
  }

  private keep(entry: Entry): void {
    this.runs.set(entry.run.id, entry);
    for (const [id, e] of this.runs) {
      if (this.runs.size <= MAX_RUNS) break;
      if (e.run.progress.state !== 'running') this.runs.delete(id);
    }
  }

  list(): ReplayRun[] {
    return [...this.runs.values()].map((e) => ({ ...e.run, report: undefined })).reverse();
  }

  get(id: string): ReplayRun | undefined {
    return this.runs.get(id)?.run;
  }

  stop(id: string): ReplayRun | undefined {
    const entry = this.runs.get(id);
    entry?.abort.abort();
    return entry?.run;
  }

  close(): void {
    for (const e of this.runs.values()) e.abort.abort();
  }
}

const emptyProgress = (): ReplayProgress => ({
  state: 'running',
  messagesTotal: 0,
  messagesSent: 0,
  checksTotal: 0,
  checksPassed: 0,
  checksFailed: 0,
  checksSkipped: 0,
  durationMs: 0,
});

const pickProgress = (r: ReplayProgress): ReplayProgress => ({
  state: r.state,
  messagesTotal: r.messagesTotal,
  messagesSent: r.messagesSent,
  checksTotal: r.checksTotal,
  checksPassed: r.checksPassed,
  checksFailed: r.checksFailed,
  checksSkipped: r.checksSkipped,
  durationMs: r.durationMs,
  ...(r.error !== undefined ? { error: r.error } : {}),
});

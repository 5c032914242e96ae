/**
 * The main side of a gateway thread (gateway-thread-worker.ts): starts it, asks it for its state and logs,
 * and stops it. A thread that does not answer in time is reported (and, when stopping, terminated); a
 * thread that dies is reported through onExit.
 */
import { Worker } from 'node:worker_threads';
import type { LogLevel } from './connectors/rest/rest-connector.ts';
import type {
  GatewayThreadAnswers,
  GatewayThreadData,
  GatewayThreadMessage,
  GatewayThreadOp,
  GatewayThreadRequest,
  GatewayThreadState,
} from './gateway-thread-protocol.ts';

const WORKER_URL = new URL(
  `./gateway-thread-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

/** a question not answered within this fails */
const ANSWER_MS = 10_000;
/** the state is asked for by pages that poll: the last one known after this */
const STATE_ANSWER_MS = 1000;

export type GatewayThreadOptions = GatewayThreadData & {
  log?: (level: LogLevel, line: string) => void;
  /** the thread ended without being asked to (reason for a person) */
  onExit?: (reason: string) => void;
};

const exited = (code: number) => `the connector's thread exited (code ${code})`;

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export class GatewayThread {
  /** where the connector listens (it does not move while the thread runs) */
  readonly baseUrl: string | null;
  /** the state of its latest answer */
  private last: GatewayThreadState;
  private readonly worker: Worker;
  private readonly options: GatewayThreadOptions;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private ended: string | null = null;
  private stopping = false;

  private constructor(worker: Worker, options: GatewayThreadOptions, initial: GatewayThreadState) {
    this.worker = worker;
    this.options = options;
    this.baseUrl = initial.baseUrl;
    this.last = initial;
    worker.on('message', (m: GatewayThreadMessage) => this.onMessage(m));
    worker.on('error', (err) => this.end(`the connector's thread failed: ${err.message}`));
    worker.on('exit', (code) => this.end(exited(code)));
  }

  static start(options: GatewayThreadOptions): Promise<GatewayThread> {
    const { log: _log, onExit: _onExit, ...data } = options;
    const worker = new Worker(WORKER_URL, {
      workerData: data satisfies GatewayThreadData,
      name: `gateway ${options.name}`,
    });
    return new Promise<GatewayThread>((resolve, reject) => {
      const failed = (err: Error) => {
        worker.off('message', onMessage);
        void worker.terminate();
        reject(err);
      };
      const onMessage = (m: GatewayThreadMessage) => {
        if (m.kind === 'log') options.log?.(m.level, m.line);
        else if (m.kind === 'failed') failed(new Error(m.error));
        else if (m.kind === 'started') {
          worker.off('message', onMessage);
          worker.off('error', onError);
          worker.off('exit', onExit);
          resolve(new GatewayThread(worker, options, m.state));
        }
      };
      const onError = (err: Error) => failed(err);
      const onExit = (code: number) => failed(new Error(exited(code)));
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
    });
  }

  /**
   * Base URL, MQTT connection and counters, as they are now; as they last were when the thread is too
   * busy to answer within a second (a converter that blocks it), so that the connector's page still shows.
   */
  async state(): Promise<GatewayThreadState> {
    try {
      this.last = await this.ask('state', undefined, STATE_ANSWER_MS);
    } catch {
      // keep the last state
    }
    return this.last;
  }

  requestLog(limit?: number): Promise<GatewayThreadAnswers['requestLog']> {
    return this.ask('requestLog', limit);
  }

  outgoingLog(limit?: number): Promise<GatewayThreadAnswers['outgoingLog']> {
    return this.ask('outgoingLog', limit);
  }

  endpoints(): Promise<GatewayThreadAnswers['endpoints']> {
    return this.ask('endpoints');
  }

  /** Stops the connector and the MQTT session; a thread that does not stop in time is terminated. */
  async stop(): Promise<void> {
    if (this.ended) return;
    this.stopping = true;
    try {
      await this.ask('stop');
    } catch {
      // no answer: terminate below
    }
    await this.worker.terminate();
  }

  private ask<Op extends GatewayThreadOp>(
    op: Op,
    limit?: number,
    timeoutMs = ANSWER_MS,
  ): Promise<GatewayThreadAnswers[Op]> {
    if (this.ended) return Promise.reject(new Error(this.ended));
    const id = this.nextId++;
    return new Promise<GatewayThreadAnswers[Op]>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new Error(
            `the connector's thread did not answer within ${timeoutMs / 1000} s (is a converter stuck?)`,
          ),
        );
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.worker.postMessage({ id, op, ...(limit !== undefined ? { limit } : {}) } as GatewayThreadRequest);
    });
  }

  private onMessage(m: GatewayThreadMessage): void {
    if (m.kind === 'log') {
      this.options.log?.(m.level, m.line);
      return;
    }
    if (m.kind !== 'answer') return;
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    clearTimeout(p.timer);
    p.resolve(m.value);
  }

  private end(reason: string): void {
    if (this.ended) return;
    this.ended = reason;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error(reason));
    }
    this.pending.clear();
    if (!this.stopping) this.options.onExit?.(reason);
  }
}

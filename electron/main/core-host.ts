// Runs the platform core (main/, which never imports Electron) in an Electron utility process: picks
// its ports, waits for its `sandboard ready {...}` line, restarts it when it crashes and tells the user,
// and stops it gracefully when the app quits.
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { app, dialog, Notification, utilityProcess, type ForkOptions } from 'electron';
import type { CoreStatus, CoreUrls } from '../../shared/desktop-bridge.ts';
import { CORE_STOP_MESSAGE, SHELL_PROOF } from '../ipc-contract.ts';

const READY_LINE = /^sandboard ready (\{.*\})\s*$/;

/** Reads the core's ready line: `sandboard ready {"http":...,"mqtt":...,"analytics":...,"dataDir":...}`. */
export function parseReadyLine(line: string): CoreUrls | null {
  const match = READY_LINE.exec(line);
  if (!match) return null;
  let value: unknown;
  try {
    value = JSON.parse(match[1]!);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { http, mqtt, analytics, dataDir } = value as Record<string, unknown>;
  if (typeof http !== 'string' || typeof mqtt !== 'string' || typeof analytics !== 'string') return null;
  if (typeof dataDir !== 'string') return null;
  if (!URL.canParse(http) || new URL(http).protocol !== 'http:') return null;
  return { http, mqtt, analytics, dataDir };
}

/** The part of Electron's UtilityProcess the host uses. */
export interface CoreChild {
  readonly stdout: NodeJS.ReadableStream | null;
  readonly stderr: NodeJS.ReadableStream | null;
  kill(): boolean;
  postMessage(message: unknown): void;
  once(event: 'exit', listener: (code: number) => void): unknown;
}

/**
 * The core's launch settings, the same as `sandboard serve`'s everywhere else (scripts/start-plan.ts's
 * CORE_NODE_FLAGS and CORE_ENV, which say why; a test keeps them equal): less young-generation and malloc
 * arena memory kept by the core and its worker threads. A malloc setting the user set wins.
 */
export const CORE_EXEC_ARGV = ['--max-semi-space-size=16', '--min-semi-space-size=16'];
export const CORE_MALLOC_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '1048576' };

export type ForkCore = (modulePath: string, args: string[], options: ForkOptions) => CoreChild;

export interface CorePorts {
  http: number;
  mqtt: number;
  analytics: number;
}

export const DEFAULT_CORE_PORTS: CorePorts = { http: 8080, mqtt: 1883, analytics: 8888 };

const PORT_NAMES: Record<keyof CorePorts, string> = {
  http: 'the UI and REST API',
  mqtt: 'MQTT',
  analytics: 'the report API',
};

/**
 * A sentence naming each port the core took instead of the preferred one (another program held it), or
 * null when it has them all. A preferred port of 0 (any free one) is never "other".
 */
export function portNotice(preferred: CorePorts, urls: CoreUrls): string | null {
  const moved: string[] = [];
  for (const key of ['http', 'mqtt', 'analytics'] as const) {
    const actual = portOf(urls[key]);
    if (preferred[key] !== 0 && actual !== null && actual !== preferred[key])
      moved.push(`${PORT_NAMES[key]} on ${actual} (${preferred[key]} is held by another program)`);
  }
  if (moved.length === 0) return null;
  return (
    `Sandboard runs on other ports than usual: ${moved.join(', ')}. ` +
    'Devices and clients aimed at the usual ports reach that other program, not Sandboard.'
  );
}

export interface CoreHostOptions {
  /** the script the utility process runs (dist/electron/core-entry.js) */
  entry: string;
  dataDir: string;
  host?: string;
  /** ports to try first; a taken one falls back to 0 (a free port) */
  ports?: CorePorts;
  fork: ForkCore;
  env?: NodeJS.ProcessEnv;
  isPortFree?: (host: string, port: number) => Promise<boolean>;
  readyTimeoutMs?: number;
  stopTimeoutMs?: number;
  /** delay before each restart after a crash; the last one repeats */
  restartDelaysMs?: number[];
  /** more crashes than this within `crashWindowMs` and the host gives up (status `failed`) */
  maxCrashes?: number;
  crashWindowMs?: number;
  /** where the core's stderr and non-ready stdout lines go */
  log?: (line: string) => void;
  now?: () => number;
}

/** The core exited before reporting ready. */
export class CoreStartError extends Error {
  readonly exitCode: number | null;
  constructor(message: string, exitCode: number | null) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** `sandboard serve` exits 3 when another process holds the data directory: restarting cannot help. */
const EXIT_DATA_DIR_LOCKED = 3;
const STDERR_TAIL_CHARS = 4000;

/** True when `port` can be listened on at `host` right now (0 always can). */
export function isPortFree(host: string, port: number): Promise<boolean> {
  if (port === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

function portOf(url: string): number | null {
  const port = URL.canParse(url) ? Number(new URL(url).port) : NaN;
  return Number.isInteger(port) && port > 0 ? port : null;
}

function withTimeout(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

export class CoreHost extends EventEmitter<{ status: [CoreStatus] }> {
  status: CoreStatus = { state: 'idle', urls: null, restarts: 0, message: null, since: Date.now() };

  private readonly options: Required<Omit<CoreHostOptions, 'env'>> & { env: NodeJS.ProcessEnv | undefined };
  private child: CoreChild | null = null;
  private childExited: Promise<void> | null = null;
  private starting: Promise<CoreUrls> | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private crashTimes: number[] = [];
  private stopping = false;
  private launchSecret: string | null = null;

  constructor(options: CoreHostOptions) {
    super();
    this.options = {
      host: '127.0.0.1',
      ports: DEFAULT_CORE_PORTS,
      isPortFree,
      readyTimeoutMs: 60_000,
      stopTimeoutMs: 15_000,
      restartDelaysMs: [500, 2_000, 5_000],
      maxCrashes: 3,
      crashWindowMs: 60_000,
      log: (line) => process.stderr.write(`[core] ${line}\n`),
      now: Date.now,
      ...options,
      env: options.env,
    };
  }

  /** The origin the UI is served from (http://127.0.0.1:8080), or null before the first ready line. */
  httpOrigin(): string | null {
    return this.status.urls ? new URL(this.status.urls.http).origin : null;
  }

  /** Origins of the core's HTTP servers (UI + REST, analytics): the only remote content windows may load. */
  origins(): Set<string> {
    const urls = this.status.urls;
    if (!urls) return new Set();
    return new Set([urls.http, urls.analytics].filter((u) => URL.canParse(u)).map((u) => new URL(u).origin));
  }

  /**
   * The running core's per-launch secret: its responses carry an HMAC of the shell's nonce with it. Null
   * unless a core is ready: while it starts or restarts, nothing on its port is trusted.
   */
  proofSecret(): string | null {
    return this.status.state === 'ready' ? this.launchSecret : null;
  }

  /** The core answers now (not starting, restarting, failed or stopped). */
  isReady(): boolean {
    return this.status.state === 'ready' && this.child !== null;
  }

  /** A process is running or about to be restarted: quitting has to stop it first. */
  get active(): boolean {
    return this.child !== null || this.restartTimer !== null || this.starting !== null;
  }

  /** Starts the core and resolves its URLs once it prints its ready line. */
  start(): Promise<CoreUrls> {
    if (this.status.state === 'ready' && this.status.urls) return Promise.resolve(this.status.urls);
    if (this.starting) return this.starting;
    if (this.restartTimer) {
      // a restart was scheduled: this start takes its place
      clearTimeout(this.restartTimer);
      this.restartTimer = null;
    }
    this.stopping = false;
    this.setStatus({ state: 'starting', message: null });
    this.starting = this.launch().then(
      (urls) => {
        this.starting = null;
        this.setStatus({
          state: 'ready',
          urls,
          message: null,
          portNotice: portNotice(this.options.ports, urls),
        });
        return urls;
      },
      (err: unknown) => {
        this.starting = null;
        if (!this.stopping) this.setStatus({ state: 'failed', message: (err as Error).message });
        throw err;
      },
    );
    return this.starting;
  }

  /** After `failed`: forget earlier crashes and start again. */
  retry(): Promise<CoreUrls> {
    this.crashTimes = [];
    return this.start();
  }

  /** Stops the core gracefully: asks it to stop (it flushes and snapshots), kills it if it does not exit. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) {
      clearTimeout(this.restartTimer);
      this.restartTimer = null;
    }
    const child = this.child;
    const exited = this.childExited;
    if (child && exited) {
      this.setStatus({ state: 'stopping', message: null });
      try {
        child.postMessage({ type: CORE_STOP_MESSAGE });
      } catch {
        /* the process is already going away */
      }
      if (!(await withTimeout(exited, this.options.stopTimeoutMs))) {
        this.options.log(`did not stop within ${this.options.stopTimeoutMs} ms; killing it`);
        child.kill();
        await withTimeout(exited, 5_000);
      }
    }
    // a start in progress (ports being checked, a core not ready yet) has ended too before this returns
    if (this.starting)
      await withTimeout(
        this.starting.catch(() => undefined),
        this.options.stopTimeoutMs,
      );
    this.setStatus({ state: 'stopped', message: null });
  }

  private setStatus(change: Partial<Omit<CoreStatus, 'since'>>): void {
    this.status = { ...this.status, ...change, since: this.options.now() };
    this.emit('status', this.status);
  }

  /** Ports for the next start: the ones the core had (so the UI keeps its origin), else the preferred ones. */
  private async choosePorts(): Promise<CorePorts> {
    const urls = this.status.urls;
    const wanted: CorePorts = urls
      ? {
          http: portOf(urls.http) ?? this.options.ports.http,
          mqtt: portOf(urls.mqtt) ?? this.options.ports.mqtt,
          analytics: portOf(urls.analytics) ?? this.options.ports.analytics,
        }
      : this.options.ports;
    const chosen = { ...wanted };
    for (const key of ['http', 'mqtt', 'analytics'] as const) {
      if (!(await this.options.isPortFree(this.options.host, wanted[key]))) {
        this.options.log(`port ${wanted[key]} (${key}) is taken; using a free port instead`);
        chosen[key] = 0;
      }
    }
    return chosen;
  }

  /** Forks the core and resolves on its ready line; rejects with CoreStartError if it exits first. */
  private async launch(): Promise<CoreUrls> {
    const { host, dataDir, log } = this.options;
    const ports = await this.choosePorts();
    if (this.stopping) throw new CoreStartError('The app is quitting.', null);
    const args = ['serve', '--data-dir', dataDir, '--host', host];
    args.push('--http-port', String(ports.http), '--mqtt-port', String(ports.mqtt));
    args.push('--analytics-port', String(ports.analytics));
    // a new secret for every launch: a process that takes the port while the core restarts cannot prove
    // itself with one it saw before; random demo passwords for the install (DATA_DIR/demo-logins.json)
    const secret = randomBytes(32).toString('base64url');
    const child = this.options.fork(this.options.entry, args, {
      stdio: 'pipe',
      serviceName: 'Sandboard core',
      execArgv: CORE_EXEC_ARGV,
      env: {
        ...CORE_MALLOC_ENV,
        ...(this.options.env ?? process.env),
        [SHELL_PROOF.secretEnv]: secret,
        SANDBOARD_DEMO_PASSWORDS: 'random',
      },
    });
    this.launchSecret = secret;
    this.child = child;
    let exitedResolve = () => {};
    this.childExited = new Promise((resolve) => (exitedResolve = resolve));
    let stderrTail = '';
    child.stderr?.on('data', (chunk: Buffer | string) => {
      const text = chunk.toString();
      stderrTail = (stderrTail + text).slice(-STDERR_TAIL_CHARS);
      for (const line of text.split(/\r?\n/)) if (line) log(line);
    });

    let ready = false;
    return new Promise<CoreUrls>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          new CoreStartError(`The core did not report ready within ${this.options.readyTimeoutMs} ms.`, null),
        );
        child.kill();
      }, this.options.readyTimeoutMs);
      child.once('exit', (code) => {
        clearTimeout(timer);
        if (this.child === child) {
          this.child = null;
          this.childExited = null;
          this.launchSecret = null;
        }
        exitedResolve();
        if (!ready) {
          const detail = stderrTail.trim() ? `\n\n${stderrTail.trim()}` : '';
          reject(new CoreStartError(`The core exited (code ${code}) before it was ready.${detail}`, code));
        } else if (!this.stopping) {
          this.onCrash(code, stderrTail);
        }
      });
      if (!child.stdout) {
        child.kill();
        throw new CoreStartError('The core was started without a stdout pipe.', null);
      }
      createInterface({ input: child.stdout }).on('line', (line) => {
        const urls = ready ? null : parseReadyLine(line);
        if (!urls) {
          log(line);
          return;
        }
        ready = true;
        clearTimeout(timer);
        resolve(urls);
      });
    });
  }

  /** The core stopped without being asked: restart it after a delay, unless it keeps crashing. */
  private onCrash(code: number | null, stderrTail: string): void {
    const { now, crashWindowMs, maxCrashes, restartDelaysMs } = this.options;
    const at = now();
    this.crashTimes = [...this.crashTimes.filter((t) => at - t < crashWindowMs), at];
    const why = code === null ? 'it did not report ready' : `exit code ${code}`;
    if (this.crashTimes.length > maxCrashes) {
      const detail = stderrTail.trim() ? `\n\nIts last output:\n${stderrTail.trim().slice(-1500)}` : '';
      this.setStatus({
        state: 'failed',
        message: `The platform core stopped unexpectedly ${this.crashTimes.length} times within ${Math.round(crashWindowMs / 1000)} s (last: ${why}), so it was not restarted again.${detail}`,
      });
      return;
    }
    const delay = restartDelaysMs[Math.min(this.crashTimes.length, restartDelaysMs.length) - 1] ?? 1_000;
    this.setStatus({
      state: 'restarting',
      message: `The platform core stopped unexpectedly (${why}); restarting it.`,
    });
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      void this.restart();
    }, delay);
  }

  private async restart(): Promise<void> {
    if (this.stopping) return;
    this.starting = this.launch();
    try {
      const urls = await this.starting;
      this.starting = null;
      if (this.stopping) return;
      this.setStatus({
        state: 'ready',
        urls,
        portNotice: portNotice(this.options.ports, urls),
        restarts: this.status.restarts + 1,
        message: 'The platform core was restarted after it stopped unexpectedly.',
      });
    } catch (err) {
      this.starting = null;
      if (this.stopping) return;
      const code = err instanceof CoreStartError ? err.exitCode : null;
      if (code === EXIT_DATA_DIR_LOCKED) this.setStatus({ state: 'failed', message: (err as Error).message });
      else this.onCrash(code, (err as Error).message);
    }
  }
}

export interface SetupCoreHostOptions {
  entry: string;
  dataDir: string;
}

/**
 * Creates the core host with Electron's utilityProcess, stops the core before the app quits, and tells
 * the user when it crashed (a notification; a dialog when it could not be brought back).
 */
export function setupCoreHost(options: SetupCoreHostOptions): CoreHost {
  const host = new CoreHost({
    ...options,
    fork: (modulePath, args, forkOptions) => utilityProcess.fork(modulePath, args, forkOptions),
  });

  // Quit waits for the core to stop, then quits again (also when the core was still starting): a
  // process left running would keep the single-instance lock and later launches would do nothing.
  let quitting = false;
  let coreStopped = false;
  app.on('before-quit', (event) => {
    if (coreStopped || !host.active) return;
    event.preventDefault();
    if (quitting) return;
    quitting = true;
    void host.stop().finally(() => {
      coreStopped = true;
      app.quit();
    });
  });

  host.on('status', (status) => {
    if (quitting) return;
    if (status.state === 'restarting')
      tellUser('Sandboard restarted its platform core', status.message ?? '');
    if (status.state === 'failed') void askAfterFailure(host, status.message ?? 'The platform core failed.');
  });
  return host;
}

function tellUser(title: string, body: string): void {
  if (Notification.isSupported()) new Notification({ title, body }).show();
  else void dialog.showMessageBox({ type: 'warning', title, message: title, detail: body });
}

async function askAfterFailure(host: CoreHost, message: string): Promise<void> {
  const { response } = await dialog.showMessageBox({
    type: 'error',
    title: 'Sandboard',
    message: 'Sandboard could not run its platform core.',
    detail: message,
    buttons: ['Try again', 'Quit'],
    defaultId: 0,
    cancelId: 1,
  });
  if (response === 0) host.retry().catch(() => undefined /* reported through the status again */);
  else app.quit();
}

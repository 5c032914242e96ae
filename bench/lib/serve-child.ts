import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { CORE_ENV, CORE_NODE_FLAGS } from '../../scripts/start-plan.ts';

const BIN = fileURLToPath(new URL('../../bin/sandboard.js', import.meta.url));

export interface ServeChild {
  child: ChildProcess;
  urls: { http: string; mqtt: string; analytics: string; dataDir: string };
  /** ms from spawn to the ready line */
  readyMs: number;
  /** serve's start phases (ms since its process started), when SANDBOARD_STARTUP_TIMINGS was set */
  phases: Record<string, number>;
  stop(): Promise<void>;
}

/**
 * How serve is launched: as users launch it (`npm run serve`, the bin, the desktop app: the core's Node
 * flags and malloc settings), plain `node bin/sandboard.js serve` with neither (to measure what they do), or
 * as users launch it with BENCH_ALT_NODE_ARGS after the core's flags (a candidate flag, e.g.
 * --max-semi-space-size=32, measured against the current ones).
 */
export type ServeLaunch = 'user' | 'plain' | 'alt';

/**
 * Starts the real `sandboard serve` in its own process, so the load generator does not share its core.
 * `bin` runs another checkout's command line (bench:ingest-compare's older commit).
 */
export async function startServeChild(
  dataDir: string,
  env: NodeJS.ProcessEnv = {},
  bin = BIN,
  launch: ServeLaunch = 'user',
): Promise<ServeChild> {
  const started = performance.now();
  // BENCH_SERVE_NODE_ARGS: more Node flags for serve (diagnostics: --trace-gc, --cpu-prof)
  const argsOf = (v: string | undefined) => v?.split(/\s+/).filter(Boolean) ?? [];
  const nodeArgs = argsOf(process.env.BENCH_SERVE_NODE_ARGS);
  const launchArgs = {
    user: CORE_NODE_FLAGS,
    plain: [],
    alt: [...CORE_NODE_FLAGS, ...argsOf(process.env.BENCH_ALT_NODE_ARGS)],
  }[launch];
  const serveArgs = ['serve', '--data-dir', dataDir, '--http-port', '0', '--mqtt-port', '0'];
  const child = spawn(
    process.execPath,
    [...launchArgs, ...nodeArgs, bin, ...serveArgs, '--analytics-port', '0'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env:
        launch !== 'plain'
          ? { ...CORE_ENV, ...process.env, ...env }
          : { ...process.env, MALLOC_ARENA_MAX: undefined, ...env },
    },
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  // BENCH_SERVE_LOG=<file>: serve's output is appended there (diagnostics such as --trace-gc)
  if (process.env.BENCH_SERVE_LOG) {
    const log = createWriteStream(process.env.BENCH_SERVE_LOG, { flags: 'a' });
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
  }
  let phases: Record<string, number> = {};
  createInterface({ input: child.stderr! }).on('line', (line) => {
    const m = /^sandboard startup (\{.*\})$/.exec(line);
    if (m) phases = JSON.parse(m[1]!) as Record<string, number>;
  });
  const urls = await new Promise<ServeChild['urls']>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /^sandboard ready (\{.*\})$/.exec(line);
      if (m) resolve(JSON.parse(m[1]!) as ServeChild['urls']);
    });
    child.once('exit', (code) => reject(new Error(`sandboard serve exited with ${code}: ${stderr}`)));
  });
  const readyMs = performance.now() - started;
  return {
    child,
    urls,
    readyMs,
    get phases() {
      return phases;
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

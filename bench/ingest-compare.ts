/**
 * npm run bench:ingest-compare -- --ref <commit> — bench:ingest's load against this checkout and an older
 * commit's `sandboard serve`, in turns (ref, this, ref, this, ...), with medians: the same-sitting comparison
 * wave 2 used, for finding ingest a change has cost.
 *
 * The ref is checked out once into a detached git worktree under the system temp folder (kept for later
 * runs, sharing this checkout's node_modules through a symlink). Each turn runs a fresh serve with the MQTT
 * inspector at its default, 10 gateways x 100 devices, the load of bench:ingest. Env: BENCH_TURNS (turns
 * per side, default 3), BENCH_DURATION_S (measured seconds per turn, 8), BENCH_WARMUP_S (1), BENCH_WINDOW (4).
 * BENCH_CPU_PROF=<dir>: every serve writes a V8 CPU profile there, and the bench prints the functions whose
 * self time per publish differs most between the two sides (summed over all of a side's turns).
 * BENCH_REF_ENV / BENCH_THIS_ENV ("NAME=value,NAME=value"): environment for one side's serve only, to
 * compare a setting (--ref HEAD with BENCH_THIS_ENV=SANDBOARD_INSPECTOR_BUDGET_MB=0: the inspector's cost).
 * Last line: BENCH {"name":"ingest-compare",...}.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { printBench, printFigures, round } from './lib/bench-output.ts';
import { benchHttp, createBenchGateways, tenantToken } from './lib/bench-http.ts';
import { connectClients, connectDevices, DATAPOINTS_PER_PUBLISH, runLoad } from './lib/gateway-load.ts';
import { processCpuMs } from './lib/proc-cpu.ts';
import { startServeChild } from './lib/serve-child.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({ options: { ref: { type: 'string' } } });
const ref = args.ref ?? process.env.BENCH_REF;
if (!ref) {
  process.stderr.write('usage: npm run bench:ingest-compare -- --ref <commit> (or BENCH_REF=<commit>)\n');
  process.exit(2);
}
const GATEWAYS = 10;
const TURNS = Number(process.env.BENCH_TURNS ?? 3);
const DURATION_MS = Number(process.env.BENCH_DURATION_S ?? 8) * 1000;
const WARMUP_MS = Number(process.env.BENCH_WARMUP_S ?? 1) * 1000;
const WINDOW = Number(process.env.BENCH_WINDOW ?? 4);
const BASE = Date.now() - 86_400_000;
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
const envOf = (text = ''): NodeJS.ProcessEnv =>
  Object.fromEntries(
    text
      .split(',')
      .filter((pair) => pair.includes('='))
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
const REF_ENV = envOf(process.env.BENCH_REF_ENV);
const THIS_ENV = envOf(process.env.BENCH_THIS_ENV);

/** The ref's checkout: a detached worktree made once, with this checkout's node_modules. */
function refCheckout(commit: string): { dir: string; sha: string } {
  const sha = execFileSync('git', ['rev-parse', '--short', `${commit}^{commit}`], {
    cwd: root,
    encoding: 'utf8',
  }).trim();
  const dir = join(tmpdir(), `sandboard-ref-${sha}`);
  if (!existsSync(join(dir, 'bin', 'sandboard.js'))) {
    rmSync(dir, { recursive: true, force: true });
    execFileSync('git', ['worktree', 'prune'], { cwd: root });
    execFileSync('git', ['worktree', 'add', '--detach', dir, sha], { cwd: root, stdio: 'ignore' });
  }
  if (!existsSync(join(dir, 'node_modules')))
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return { dir, sha };
}

interface Turn {
  datapointsPerSec: number;
  /** datapoints per server CPU-second: steadier than datapoints/s on a shared machine */
  perCpuSec: number;
  publishes: number;
  /** the server's RSS once the load is over, MB */
  rssMB: number;
  profileDir?: string;
  /** the load's start and end on the monotonic clock V8's profiles use, in µs */
  window: [number, number];
}

async function turn(bin: string, label: string, n: number, env: NodeJS.ProcessEnv): Promise<Turn> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandboard-bench-compare-'));
  const profileDir = PROFILE_DIR && join(PROFILE_DIR, `${label}-${n}`);
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const serve = await startServeChild(
    dataDir,
    { ...env, ...(profileDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` } : {}) },
    bin,
  );
  try {
    const http = benchHttp(serve.urls.http);
    const token = await tenantToken(http);
    const clients = await connectClients(serve.urls.mqtt, await createBenchGateways(http, token, GATEWAYS));
    await connectDevices(clients, WINDOW);
    const cpuBefore = processCpuMs(serve.child.pid) ?? Number.NaN;
    const from = Number(process.hrtime.bigint() / 1000n);
    const result = await runLoad(clients, {
      window: WINDOW,
      warmupMs: WARMUP_MS,
      durationMs: DURATION_MS,
      base: BASE,
    });
    const to = Number(process.hrtime.bigint() / 1000n);
    const cpuMs = (processCpuMs(serve.child.pid) ?? Number.NaN) - cpuBefore;
    const rssKb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${serve.child.pid}/status`, 'utf8'))?.[1];
    await Promise.all(clients.map((c) => c.endAsync()));
    const publishes = result.ackedPerGateway.reduce((a, b) => a + b, 0);
    return {
      datapointsPerSec: result.datapointsPerSec,
      perCpuSec: (publishes * DATAPOINTS_PER_PUBLISH * 1000) / cpuMs,
      publishes,
      rssMB: Number(rssKb ?? NaN) / 1024,
      window: [from, to],
      ...(profileDir ? { profileDir } : {}),
    };
  } finally {
    await serve.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

interface CpuProfile {
  startTime: number;
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * Self time in ms per function (name and file, the checkout's own folder left out) over a side's turns,
 * during the load only (sample times and the load's window are both on the monotonic clock).
 */
function selfTimes(turns: Turn[], checkoutDir: string): Map<string, number> {
  const totals = new Map<string, number>();
  for (const t of turns) {
    for (const file of readdirSync(t.profileDir!).filter((f) => f.endsWith('.cpuprofile'))) {
      const profile = JSON.parse(readFileSync(join(t.profileDir!, file), 'utf8')) as CpuProfile;
      const keyOf = new Map<number, string>();
      for (const { id, callFrame: f } of profile.nodes) {
        const url = f.url
          .replace(/^file:\/\/.*?\/node_modules\//, 'node_modules/')
          .replace(`file://${checkoutDir}/`, '');
        keyOf.set(id, `${f.functionName || '(anonymous)'} ${url}`);
      }
      let at = profile.startTime;
      profile.samples.forEach((id, i) => {
        const delta = profile.timeDeltas[i] ?? 0;
        at += delta;
        if (at < t.window[0] || at > t.window[1]) return;
        const key = keyOf.get(id)!;
        totals.set(key, (totals.get(key) ?? 0) + delta / 1000);
      });
    }
  }
  return totals;
}

function printProfileDiff(refTurns: Turn[], refDir: string, ourTurns: Turn[]): void {
  const refPublishes = refTurns.reduce((a, t) => a + t.publishes, 0);
  const ourPublishes = ourTurns.reduce((a, t) => a + t.publishes, 0);
  const refSelf = selfTimes(refTurns, refDir);
  const ourSelf = selfTimes(ourTurns, root.replace(/\/$/, ''));
  const total = (m: Map<string, number>, publishes: number) =>
    (([...m.values()].reduce((a, b) => a + b, 0) * 1000) / publishes).toFixed(1);
  console.log(
    `server time sampled during the load per publish: ${total(refSelf, refPublishes)} µs at the ref, ${total(ourSelf, ourPublishes)} µs here`,
  );
  const rows = [...new Set([...refSelf.keys(), ...ourSelf.keys()])]
    .map((key) => {
      // µs of self time per publish during the load
      const before = ((refSelf.get(key) ?? 0) * 1000) / refPublishes;
      const after = ((ourSelf.get(key) ?? 0) * 1000) / ourPublishes;
      return { key, before, after, delta: after - before };
    })
    .sort((a, b) => Math.abs(b.delta) - Math.abs(a.delta))
    .slice(0, 25);
  console.log('self time per publish, µs (ref -> this checkout), largest differences first:');
  for (const r of rows) {
    console.log(
      `  ${r.delta >= 0 ? '+' : ''}${r.delta.toFixed(2).padStart(7)}  ${r.before.toFixed(2).padStart(7)} -> ${r.after.toFixed(2).padStart(7)}  ${r.key}`,
    );
  }
}

const { dir: refDir, sha } = refCheckout(ref);
const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
const loadBefore = loadavg()[0]!;
console.log(
  `ingest at ${sha} against this checkout (${head}), ${TURNS} turns each in alternation, ` +
    `${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s measured per turn; ${cpus().length} CPUs, load average ${loadBefore.toFixed(1)}`,
);
const refTurns: Turn[] = [];
const ourTurns: Turn[] = [];
for (let n = 0; n < TURNS; n++) {
  const a = await turn(join(refDir, 'bin', 'sandboard.js'), 'ref', n, REF_ENV);
  refTurns.push(a);
  console.log(
    `  turn ${n + 1} ${sha}: ${Math.round(a.datapointsPerSec)} datapoints/s, ${Math.round(a.perCpuSec)} per CPU-second`,
  );
  const b = await turn(join(root, 'bin', 'sandboard.js'), 'this', n, THIS_ENV);
  ourTurns.push(b);
  console.log(
    `  turn ${n + 1} ${head}: ${Math.round(b.datapointsPerSec)} datapoints/s, ${Math.round(b.perCpuSec)} per CPU-second`,
  );
}
const refRate = median(refTurns.map((t) => t.datapointsPerSec));
const ourRate = median(ourTurns.map((t) => t.datapointsPerSec));
const refCpu = median(refTurns.map((t) => t.perCpuSec));
const ourCpu = median(ourTurns.map((t) => t.perCpuSec));
const loadAfter = loadavg()[0]!;
printFigures({
  [`median, ref ${sha}`]: [refRate, 'datapoints/s'],
  [`median, this checkout ${head}`]: [ourRate, 'datapoints/s'],
  'ratio this / ref (datapoints/s)': ourRate / refRate,
  [`median per server CPU-second, ref ${sha}`]: [refCpu, 'datapoints'],
  [`median per server CPU-second, this checkout ${head}`]: [ourCpu, 'datapoints'],
  'ratio this / ref (per server CPU-second)': ourCpu / refCpu,
  [`median RSS after the load, ${sha} / ${head}`]: `${Math.round(median(refTurns.map((t) => t.rssMB)))} / ${Math.round(median(ourTurns.map((t) => t.rssMB)))} MB`,
  'load average before / after (other processes share the CPUs)': `${loadBefore.toFixed(1)} / ${loadAfter.toFixed(1)}`,
});
if (PROFILE_DIR) printProfileDiff(refTurns, refDir, ourTurns);
printBench({
  name: 'ingest-compare',
  ref: sha,
  head,
  turns: TURNS,
  refDatapointsPerSec: refRate,
  datapointsPerSec: ourRate,
  ratio: round(ourRate / refRate),
  refPerServerCpuSec: refCpu,
  perServerCpuSec: ourCpu,
  cpuRatio: round(ourCpu / refCpu),
  refRssMB: median(refTurns.map((t) => t.rssMB)),
  rssMB: median(ourTurns.map((t) => t.rssMB)),
  loadAverage: loadAfter,
});

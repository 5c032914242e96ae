/**
 * Push to edge throughput: telemetry messages through the push to edge rule node, in-process, over a real
 * DurableDb (group commit: many messages in flight, each one's Success emitted once its events are
 * fsynced), to devices assigned to 1 edge and to 10 edges. Baseline in the same run: the same edge event
 * rows inserted into a bare in-memory sql.js database (same schema, same INSERT, one transaction per
 * message, no rule engine, no durability). Then the edge side: one edge pulling a large queue over the real
 * HTTP edge API of `sandboard serve` (a child process), 5000 events per pull, acknowledging each batch.
 * Run: npm run bench:edge. Last line: BENCH {"name":"edge",...}.
 *
 * Env: BENCH_EDGE_MESSAGES (messages to 1 edge, default 40,000; a quarter of that goes to 10 edges),
 * BENCH_IN_FLIGHT (messages in flight, default 200), BENCH_ROUNDS (3), BENCH_PULL_EVENTS (200,000),
 * BENCH_EDGE_PART (node | pull: only that half, for profiling).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Statement } from 'sql.js';
import { NODE_TYPES } from '../shared/rule-engine.ts';
import { EdgeQueue, type NewEdgeEvent } from '../main/edge/edge-queue.ts';
import type { PlatformContext } from '../main/platform/context.ts';
import { createNodeRegistry } from '../main/rule-engine/node-registry.ts';
import { toEdgeEvent } from '../main/rule-engine/nodes/push-to-edge-node.ts';
import { RuleEngine } from '../main/rule-engine/rule-engine.ts';
import { success, type NodeDefinition } from '../main/rule-engine/rule-node.ts';
import { newMsg, type TbMsg } from '../main/platform/tb-msg.ts';
import type { Param, Writer } from '../main/store/durable-db.ts';
import { migrations } from '../main/platform/migrations.ts';
import { loadSqlJs } from '../main/store/sqljs.ts';
import { percentile, printBench, printFigure, printFigures } from './lib/bench-output.ts';
import { createAssignedDevices, createEdges, openEdgeServices } from './lib/edge-services.ts';
import { processCpuMs } from './lib/proc-cpu.ts';
import { startServeChild } from './lib/serve-child.ts';

const MESSAGES = Number(process.env.BENCH_EDGE_MESSAGES ?? 40_000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PULL_EVENTS = Number(process.env.BENCH_PULL_EVENTS ?? 200_000);
const PULL_BATCH = 5000;
const DEVICES = 20;
const TARGETS = { eventsPerSec: 20_000, successP99Ms: 20, ratio: 0.5, pullEventsPerSec: 50_000 };

/** Counts the messages that leave the push to edge node through Success. */
let successes = 0;
const successCounter: NodeDefinition = {
  type: 'bench.SuccessCounter',
  label: 'Success counter',
  relations: ['Success'],
  defaultConfiguration: {},
  validate: () => null,
  create: () => ({
    process: (msg) => {
      successes++;
      return success(msg);
    },
  }),
};

function makeMessages(deviceIds: string[], count: number, tsBase: number): TbMsg[] {
  const out: TbMsg[] = [];
  for (let i = 0; i < count; i++) {
    const d = i % deviceIds.length;
    out.push(
      newMsg(
        'POST_TELEMETRY_REQUEST',
        { entityType: 'DEVICE', id: deviceIds[d]! },
        { temperature: 20 + (i % 150) / 10 + 0.05, humidity: 30 + (i % 60), active: i % 5 !== 0 },
        { deviceName: `device-${d}`, deviceType: 'default', ts: String(tsBase + i) },
      ),
    );
  }
  return out;
}

interface RunResult {
  events: number;
  ms: number;
  eventsPerSec: number;
  cpuMs: number;
}

interface DurableResult extends RunResult {
  messages: number;
  latencyMs: number[];
  groups: number;
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}

/** Messages through [push to edge] -Success-> [counter] over a fresh DurableDb. */
async function runDurable(edgeCount: number, messageCount: number): Promise<DurableResult> {
  const dir = mkdtempSync(join(tmpdir(), 'sandboard-edge-bench-'));
  try {
    const env = await openEdgeServices(dir);
    const edges = await createEdges(env, edgeCount, 'bench');
    const deviceIds = await createAssignedDevices(
      env,
      DEVICES,
      'bench',
      edges.map((e) => e.id),
    );
    const engine = new RuleEngine(createNodeRegistry([successCounter]), {
      services: env.services,
      edgeQueue: env.edgeQueue,
      log: () => undefined,
    });
    engine.load({
      firstNodeIndex: 0,
      nodes: [
        { type: NODE_TYPES.pushToEdge, name: 'Push to edge', configuration: { scope: 'SERVER_SCOPE' } },
        { type: successCounter.type, name: 'Success counter', configuration: {} },
      ],
      connections: [{ fromIndex: 0, toIndex: 1, type: 'Success' }],
    });
    const messages = makeMessages(deviceIds, messageCount, 1_700_000_000_000);
    const groupsBefore = env.db.getStats().groupsCommitted;
    const latencyMs: number[] = [];
    const failures: string[] = [];
    successes = 0;
    let inFlight = 0;
    let wake: (() => void) | null = null;

    const cpuStart = process.cpuUsage();
    const started = performance.now();
    for (const msg of messages) {
      while (inFlight >= IN_FLIGHT) await new Promise<void>((resolve) => (wake = resolve));
      const issued = performance.now();
      inFlight++;
      engine.process(msg).then(
        (errors) => {
          latencyMs.push(performance.now() - issued);
          if (errors.length) failures.push(...errors);
          inFlight--;
          wake?.();
          wake = null;
        },
        (err: unknown) => {
          throw err;
        },
      );
      // Messages arrive from the network: let the event loop (and the journal I/O) run between them.
      await yieldToLoop();
    }
    while (inFlight > 0) await new Promise<void>((resolve) => (wake = resolve));
    const ms = performance.now() - started;
    const cpuMs = cpuMsSince(cpuStart);
    if (failures.length) throw new Error(`${failures.length} messages failed: ${failures[0]}`);
    if (successes !== messageCount) throw new Error(`${successes} Success of ${messageCount} messages`);
    const events = messageCount * edgeCount;
    const stored = env.edgeQueue.counts().PENDING;
    if (stored !== events) throw new Error(`the queue holds ${stored} pending events instead of ${events}`);
    const groups = env.db.getStats().groupsCommitted - groupsBefore;
    await env.close();
    return {
      messages: messageCount,
      events,
      ms,
      eventsPerSec: (events / ms) * 1000,
      cpuMs,
      latencyMs,
      groups,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The same event rows (same mapping, same EdgeQueue.enqueue statements) into bare in-memory sql.js. */
async function runBare(edgeCount: number, messageCount: number, oneTransaction: boolean): Promise<RunResult> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  const statements = new Map<string, Statement>();
  const writer: Writer = {
    run: (sql: string, params?: Param[]) => {
      let stmt = statements.get(sql);
      if (!stmt) statements.set(sql, (stmt = db.prepare(sql)));
      stmt.run((params ?? []) as never);
      return db.getRowsModified();
    },
    all: () => [],
    get: () => undefined,
    onRollback: () => {},
  };
  for (const m of migrations) {
    db.exec('BEGIN');
    m.up({ ...writer, run: (sql, params) => (db.run(sql, (params ?? []) as never), 0) });
    db.exec('COMMIT');
  }
  const ctx = {
    now: Date.now,
    tenantId: 'bench',
    db: { get: () => undefined },
  } as unknown as PlatformContext;
  const queue = new EdgeQueue(ctx, { ackTimeoutMs: 30_000, deliveredRetentionMs: 0 });
  queue.stop();
  const edgeIds = Array.from({ length: edgeCount }, (_, i) => `edge-${i}`);
  const deviceIds = Array.from({ length: DEVICES }, (_, i) => `device-${i}`);
  const messages = makeMessages(deviceIds, messageCount, 1_700_000_000_000);

  const cpuStart = process.cpuUsage();
  const started = performance.now();
  if (oneTransaction) db.exec('BEGIN');
  for (const msg of messages) {
    const event = toEdgeEvent(msg, 'SERVER_SCOPE')!;
    const rows: NewEdgeEvent[] = edgeIds.map((edgeId) => ({
      edgeId,
      type: msg.originator.entityType,
      action: event.action,
      entityId: msg.originator.id,
      body: event.body,
    }));
    if (!oneTransaction) db.exec('BEGIN');
    queue.enqueue(writer, rows);
    if (!oneTransaction) db.exec('COMMIT');
  }
  if (oneTransaction) db.exec('COMMIT');
  const ms = performance.now() - started;
  const cpuMs = cpuMsSince(cpuStart);
  const events = messageCount * edgeCount;
  const stored = Number(db.exec('SELECT COUNT(*) FROM edge_events')[0]!.values[0]![0]);
  if (stored !== events) throw new Error(`bare sql.js stored ${stored} rows instead of ${events}`);
  for (const stmt of statements.values()) stmt.free();
  db.close();
  return { events, ms, eventsPerSec: (events / ms) * 1000, cpuMs };
}

interface PullPass {
  events: number;
  ms: number;
  eventsPerSec: number;
  pulls: number;
  pullP50Ms: number;
  ackP50Ms: number;
  /** CPU time of the serve process per event (Linux /proc), less sensitive to other load than events/s */
  serverCpuUsPerEvent: number | null;
}

type Post = (path: string, body: unknown) => Promise<unknown>;
interface PulledEvent {
  seqId: number;
}

/**
 * Pulls `count` events in batches of PULL_BATCH and acknowledges each batch (upToSeqId). Sequential: pull,
 * ack, pull...; pipelined: the next pull goes out while the previous batch is being acknowledged (leases
 * let an edge hold several batches), as an edge that wants throughput would do it.
 */
async function pullPass(
  post: Post,
  count: number,
  pipelined: boolean,
  serverPid?: number,
): Promise<PullPass> {
  const pullMs: number[] = [];
  const ackMs: number[] = [];
  let received = 0;
  let lastSeq = 0;
  let pulls = 0;
  const pull = async () => {
    const t0 = performance.now();
    const { events } = (await post('/api/edge/queue/pull', {
      maxEvents: Math.min(PULL_BATCH, count - received),
    })) as { events: PulledEvent[] };
    pullMs.push(performance.now() - t0);
    return events;
  };
  const cpuBefore = processCpuMs(serverPid);
  const started = performance.now();
  let next: Promise<PulledEvent[]> | null = pull();
  while (next) {
    const events: PulledEvent[] = await next;
    if (events.length === 0) throw new Error(`the queue ran dry after ${received} of ${count} events`);
    pulls++;
    for (const e of events) {
      if (e.seqId <= lastSeq) throw new Error(`seqId ${e.seqId} after ${lastSeq}`);
      lastSeq = e.seqId;
    }
    received += events.length;
    const more = received < count;
    next = more && pipelined ? pull() : null;
    const t1 = performance.now();
    const { acknowledged } = (await post('/api/edge/queue/ack', { upToSeqId: lastSeq })) as {
      acknowledged: number;
    };
    ackMs.push(performance.now() - t1);
    if (acknowledged !== events.length) throw new Error(`acknowledged ${acknowledged} of ${events.length}`);
    if (more && !pipelined) next = pull();
  }
  const ms = performance.now() - started;
  const cpuAfter = processCpuMs(serverPid);
  return {
    events: received,
    ms,
    eventsPerSec: (received / ms) * 1000,
    pulls,
    pullP50Ms: percentile(pullMs, 50),
    ackP50Ms: percentile(ackMs, 50),
    serverCpuUsPerEvent:
      cpuBefore === null || cpuAfter === null ? null : ((cpuAfter - cpuBefore) * 1000) / received,
  };
}

/**
 * Fills one edge's queue in-process, then, against a serve child on that data dir, pulls and acknowledges
 * half of it sequentially and the other half pipelined, over HTTP.
 */
async function runPull(eventCount: number): Promise<{ sequential: PullPass; pipelined: PullPass }> {
  const dir = mkdtempSync(join(tmpdir(), 'sandboard-edge-bench-pull-'));
  try {
    const env = await openEdgeServices(dir);
    const [edge] = await createEdges(env, 1, 'pull');
    const [deviceId] = await createAssignedDevices(env, 1, 'pull', [edge!.id]);
    const messages = makeMessages([deviceId!], 1000, 1_700_000_000_000);
    const warmup = 100;
    for (let done = 0; done < eventCount + warmup;) {
      const n = Math.min(1000, eventCount + warmup - done);
      await env.db.write((w) =>
        env.edgeQueue.enqueue(
          w,
          messages.slice(0, n).map((msg) => {
            const e = toEdgeEvent(msg, 'SERVER_SCOPE')!;
            return { edgeId: edge!.id, type: 'DEVICE', action: e.action, entityId: deviceId!, body: e.body };
          }),
        ),
      );
      done += n;
    }
    await env.close();

    const serve = await startServeChild(dir);
    try {
      const auth = `Basic ${Buffer.from(`${edge!.routingKey}:${edge!.secret}`).toString('base64')}`;
      const post: Post = async (path, body) => {
        const res = await fetch(`${serve.urls.http}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: auth },
          body: JSON.stringify(body),
        });
        if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
        return res.json() as Promise<unknown>;
      };
      // Warm up the routes (JIT, prepared statements) on small batches.
      for (let i = 0; i < warmup / 10; i++) await pullPass(post, 10, false);
      const half = Math.floor(eventCount / 2);
      const sequential = await pullPass(post, half, false, serve.child.pid);
      const pipelined = await pullPass(post, eventCount - half, true, serve.child.pid);
      return { sequential, pipelined };
    } finally {
      await serve.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const PART = process.env.BENCH_EDGE_PART ?? 'all';
const scenarios = [
  { edges: 1, messages: MESSAGES },
  { edges: 10, messages: Math.max(1, Math.round(MESSAGES / 4)) },
];
console.log(
  `edge bench: telemetry messages through push to edge (${DEVICES} devices, ${IN_FLIGHT} in flight), ` +
    `${scenarios.map((s) => `${s.messages} messages to ${s.edges} edge${s.edges > 1 ? 's' : ''}`).join(', ')}; ` +
    `median of ${ROUNDS} rounds; then ${PULL_EVENTS} events pulled over HTTP (${PULL_BATCH} per pull)`,
);

interface ScenarioResult {
  edges: number;
  durable: DurableResult;
  bare: RunResult;
  /** the same rows into bare sql.js in one transaction: the cheapest insert there is, for context */
  bareOneTransaction: RunResult;
  ratio: number;
}
const results: ScenarioResult[] = [];
if (PART !== 'pull') {
  // Warm up both paths (JIT, sql.js module) on a small load.
  await runBare(2, 500, false);
  await runDurable(2, 500);
  for (const scenario of scenarios) {
    // Bare and durable back to back in every round (alternating which goes first), so that load from other
    // processes skews both alike; the median round by ratio is reported.
    const rounds: ScenarioResult[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      let bare: RunResult;
      let durable: DurableResult;
      if (round % 2 === 1) {
        bare = await runBare(scenario.edges, scenario.messages, false);
        durable = await runDurable(scenario.edges, scenario.messages);
      } else {
        durable = await runDurable(scenario.edges, scenario.messages);
        bare = await runBare(scenario.edges, scenario.messages, false);
      }
      const bareOneTransaction = await runBare(scenario.edges, scenario.messages, true);
      const ratio = durable.eventsPerSec / bare.eventsPerSec;
      printFigure(
        `${scenario.edges} edge(s), round ${round}`,
        `bare ${Math.round(bare.eventsPerSec)} events/s, durable ${Math.round(durable.eventsPerSec)} events/s ` +
          `(Success p99 ${percentile(durable.latencyMs, 99).toFixed(1)} ms), ratio ${ratio.toFixed(3)}`,
      );
      rounds.push({ edges: scenario.edges, durable, bare, bareOneTransaction, ratio });
    }
    rounds.sort((x, y) => x.ratio - y.ratio);
    results.push(rounds[Math.floor(rounds.length / 2)]!);
  }
  for (const r of results) {
    const d = r.durable;
    const label = `to ${r.edges} edge${r.edges > 1 ? 's' : ''}`;
    printFigures({
      [`${label}: messages`]: [d.messages, `(${d.events} events)`],
      [`${label}: events stored (durable, Success emitted)`]: [d.eventsPerSec, 'events/s'],
      [`${label}: messages through Success`]: [(d.messages / d.ms) * 1000, 'msg/s'],
      [`${label}: Success latency p50`]: [percentile(d.latencyMs, 50), 'ms'],
      [`${label}: Success latency p99`]: [percentile(d.latencyMs, 99), 'ms'],
      [`${label}: bare sql.js, a transaction per message`]: [r.bare.eventsPerSec, 'events/s'],
      [`${label}: bare sql.js, one transaction for all`]: [
        r.bareOneTransaction.eventsPerSec,
        'events/s (context)',
      ],
      [`${label}: durable/bare ratio`]: r.ratio,
      [`${label}: messages per journal group`]: d.messages / Math.max(1, d.groups),
      [`${label}: cpu`]: [d.cpuMs, `ms (bare ${Math.round(r.bare.cpuMs)} ms)`],
      [`${label}: cpu per event`]: [
        (d.cpuMs * 1000) / d.events,
        `µs (a free core would store ${Math.round((d.events / d.cpuMs) * 1000)} events/s)`,
      ],
    });
  }
}

const pull = PART === 'node' ? null : await runPull(PULL_EVENTS);
if (pull) {
  for (const [name, pass] of [
    ['sequential', pull.sequential],
    ['pipelined', pull.pipelined],
  ] as const) {
    printFigures({
      [`edge pull over HTTP, ${name}`]: [pass.eventsPerSec, 'events/s retrieved and acknowledged'],
      [`edge pull, ${name}: batches`]: [
        pass.pulls,
        `pulls of ${PULL_BATCH} (${pass.events} events in ${Math.round(pass.ms)} ms)`,
      ],
      [`edge pull, ${name}: pull p50 / ack p50`]: [
        pass.pullP50Ms,
        `ms / ${pass.ackP50Ms.toFixed(1)} ms per batch`,
      ],
      [`edge pull, ${name}: server CPU per event`]: [
        pass.serverCpuUsPerEvent ?? 'n/a',
        pass.serverCpuUsPerEvent === null
          ? ''
          : `µs (a free core would serve ${Math.round(1e6 / pass.serverCpuUsPerEvent)} events/s)`,
      ],
    });
  }
}

const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
const summary: {
  eventsPerSec: number | null;
  successP50Ms: number | null;
  successP99Ms: number | null;
  ratio: number | null;
  pullEventsPerSec: number | null;
} = {
  eventsPerSec: results.length ? Math.min(...results.map((r) => r.durable.eventsPerSec)) : null,
  successP50Ms: results.length ? Math.max(...results.map((r) => percentile(r.durable.latencyMs, 50))) : null,
  successP99Ms: results.length ? Math.max(...results.map((r) => percentile(r.durable.latencyMs, 99))) : null,
  ratio: results.length ? Math.min(...results.map((r) => r.ratio)) : null,
  pullEventsPerSec: pull ? pull.sequential.eventsPerSec : null,
};
const { eventsPerSec, successP99Ms, ratio, pullEventsPerSec } = summary;
if (eventsPerSec !== null && successP99Ms !== null && ratio !== null) {
  printFigures({
    'events/s (lower of 1 and 10 edges)': [
      eventsPerSec,
      `(target >= ${TARGETS.eventsPerSec}: ${verdict(eventsPerSec >= TARGETS.eventsPerSec)})`,
    ],
    'Success p99 (higher of the two)': [
      successP99Ms,
      `ms (target <= ${TARGETS.successP99Ms}: ${verdict(successP99Ms <= TARGETS.successP99Ms)})`,
    ],
    'durable/bare ratio (lower of the two)': [
      ratio,
      `(target >= ${TARGETS.ratio}: ${verdict(ratio >= TARGETS.ratio)})`,
    ],
  });
}
if (pull && pullEventsPerSec !== null) {
  printFigure(
    'pull events/s (sequential)',
    pullEventsPerSec,
    `(target >= ${TARGETS.pullEventsPerSec}: ${verdict(pullEventsPerSec >= TARGETS.pullEventsPerSec)})`,
  );
}
const load = loadavg()[0]!;
printFigure('load average (1 min) at the end', load, `on ${availableParallelism()} cores`);
printBench({
  name: 'edge',
  ...summary,
  pullEventsPerSecPipelined: pull?.pipelined.eventsPerSec ?? null,
  pullServerCpuUsPerEvent: pull?.sequential.serverCpuUsPerEvent ?? null,
  eventsPerSec1Edge: results[0]?.durable.eventsPerSec ?? null,
  eventsPerSec10Edges: results[1]?.durable.eventsPerSec ?? null,
  ratio1Edge: results[0]?.ratio ?? null,
  ratio10Edges: results[1]?.ratio ?? null,
  bareEventsPerSec1Edge: results[0]?.bare.eventsPerSec ?? null,
  bareEventsPerSec10Edges: results[1]?.bare.eventsPerSec ?? null,
  rounds: ROUNDS,
  inFlight: IN_FLIGHT,
  loadAverage: load,
  targets: TARGETS,
});

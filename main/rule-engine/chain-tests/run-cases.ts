import { performance } from 'node:perf_hooks';
import {
  CHAIN_TEST_DEFAULT_TIMEOUT_MS,
  type CaseExpectation,
  type CaseResult,
  type ChainTestReport,
  type ChainTests,
  type MessageExpectation,
  type TestCase,
  type TestOriginator,
} from '../../../shared/schemas/chain-tests.ts';
import type { AttributeScope } from '../../../shared/schemas/telemetry.ts';
import type { AlarmEvent } from '../../platform/events.ts';
import type { Services } from '../../platform/services.ts';
import { newMsg, type Originator, type TbMsg } from '../../platform/tb-msg.ts';
import type { DebugEvent } from '../debug-log.ts';
import { entityIdByName, latestValues } from '../entity-data.ts';
import type { RuleChainService } from '../rule-chain-service.ts';
import { ruleEnginePrincipal } from '../rule-engine-principal.ts';
import { differences, listedDifferences } from './match.ts';
import { warmScriptSandbox } from './warm-scripts.ts';

/** A platform of its own for the tests (temporary data dir, no ports): its services and rule chains. */
export interface ScratchRules {
  services: Services;
  ruleChains: RuleChainService;
  stop(): Promise<void>;
}

export const DEFAULT_TEST_ORIGINATOR: TestOriginator = { name: 'Test device', type: 'DEVICE' };
/** Events of one case kept for its trace (a chain that loops stops at the engine's own limit anyway). */
const TRACE_EVENTS_MAX = 500;
/** A trace event's data and metadata in a result are cut to this many characters. */
const TRACE_TEXT_MAX = 2000;
/** Messages kept per node for the `messages` expectations. */
const MESSAGES_PER_NODE_MAX = 1000;

/** What one case's input did, as the engine's debug events tell it. */
interface Observed {
  events: DebugEvent[];
  /** node name -> the messages that reached it */
  arrived: Map<string, TbMsg[]>;
  /** node name -> the relations it emitted */
  relations: Map<string, Set<string>>;
  alarms: AlarmEvent[];
}

async function ensureOriginator(services: Services, spec: TestOriginator): Promise<Originator> {
  const entityType = spec.type ?? 'DEVICE';
  const existing = entityIdByName(services, entityType, spec.name);
  if (existing) return { entityType, id: existing };
  const actor = ruleEnginePrincipal(services);
  const request = { name: spec.name, ...(spec.profile ? { type: spec.profile } : {}) };
  const saved =
    entityType === 'ASSET'
      ? await services.assets.save(request, actor)
      : await services.devices.save(request, actor);
  return { entityType, id: saved.id.id };
}

/** As a device's own message carries them (deviceName, deviceType, ts), unless the case sets them. */
function inputMetadata(services: Services, originator: Originator, input: TestCase['input']) {
  const base: Record<string, string> = { ts: String(Date.now()) };
  if (originator.entityType === 'DEVICE') {
    const row = services.devices.findRow(originator.id);
    if (row) Object.assign(base, { deviceName: row.name, deviceType: row.type });
  }
  return { ...base, ...input.metadata };
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const cut = (text: string) => (text.length > TRACE_TEXT_MAX ? `${text.slice(0, TRACE_TEXT_MAX)}…` : text);
const list = (v: string | string[]) => (typeof v === 'string' ? [v] : v);
const sorted = (values: Iterable<string>) => [...values].sort();

function checkRelations(expected: CaseExpectation['relations'], seen: Observed, failures: string[]) {
  for (const [node, want] of Object.entries(expected ?? {})) {
    const got = sorted(seen.relations.get(node) ?? []);
    const wanted = sorted(new Set(list(want)));
    if (JSON.stringify(got) === JSON.stringify(wanted)) continue;
    const words = (r: string[]) => (r.length ? r.join(', ') : 'nothing');
    const reached = seen.arrived.has(node) || seen.relations.has(node);
    const error = seen.events.find((e) => e.nodeName === node && e.error)?.error;
    failures.push(
      `node '${node}': expected it to emit ${words(wanted)}, ${reached ? `it emitted ${words(got)}` : 'the message never reached it'}${error ? ` (${error})` : ''}`,
    );
  }
}

function messageDifferences(e: MessageExpectation, msg: TbMsg): string[] {
  const out: string[] = [];
  if (e.type !== undefined && e.type !== msg.type) out.push(`type: expected ${e.type}, got ${msg.type}`);
  if (e.data !== undefined) out.push(...differences(e.data, msg.data, e).map((d) => `data.${d}`));
  if (e.metadata) out.push(...listedDifferences(e.metadata, msg.metadata, {}, 'metadata'));
  return out;
}

function checkMessages(expected: MessageExpectation[] | undefined, seen: Observed, failures: string[]) {
  for (const e of expected ?? []) {
    const arrived = seen.arrived.get(e.node) ?? [];
    if (e.count !== undefined && arrived.length !== e.count) {
      failures.push(`node '${e.node}': expected ${e.count} message(s) to reach it, ${arrived.length} did`);
      continue;
    }
    if (e.type === undefined && e.data === undefined && e.metadata === undefined) {
      if (e.count === undefined && arrived.length === 0)
        failures.push(`node '${e.node}': no message reached it`);
      continue;
    }
    if (arrived.length === 0) {
      failures.push(`node '${e.node}': no message reached it`);
      continue;
    }
    const diffs = arrived.map((m) => messageDifferences(e, m));
    if (diffs.some((d) => d.length === 0)) continue;
    const closest = diffs.reduce((a, b) => (b.length < a.length ? b : a));
    failures.push(
      `node '${e.node}': no message that reached it matches (${arrived.length} did); the closest: ${closest.join('; ')}`,
    );
  }
}

function checkAlarms(expected: CaseExpectation['alarms'], seen: Observed, failures: string[]) {
  for (const [what, kind] of [
    ['created', 'CREATED'],
    ['cleared', 'CLEAR'],
  ] as const) {
    const want = expected?.[what];
    if (!want) continue;
    const got = seen.alarms.filter((a) => a.kind === kind).map((a) => a.alarm);
    const gotTypes = sorted(got.map((a) => a.type));
    const wantTypes = sorted(want.map((a) => a.type));
    if (JSON.stringify(gotTypes) !== JSON.stringify(wantTypes)) {
      const words = (t: string[]) => (t.length ? t.map((x) => `'${x}'`).join(', ') : 'none');
      failures.push(`alarms ${what}: expected ${words(wantTypes)}, got ${words(gotTypes)}`);
      continue;
    }
    for (const a of want) {
      const alarm = got.find((g) => g.type === a.type);
      if (a.severity && alarm && alarm.severity !== a.severity)
        failures.push(`alarm '${a.type}' ${what}: expected severity ${a.severity}, got ${alarm.severity}`);
    }
  }
}

function checkSaved(
  services: Services,
  originator: Originator,
  expect: CaseExpectation,
  failures: string[],
): void {
  const options = { tolerance: expect.tolerance };
  if (expect.latest) {
    const latest = latestValues(services, originator, Object.keys(expect.latest));
    const actual = Object.fromEntries([...latest].map(([k, p]) => [k, p.value]));
    failures.push(...listedDifferences(expect.latest, actual, options).map((d) => `latest ${d}`));
  }
  for (const [scope, values] of Object.entries(expect.attributes ?? {})) {
    if (!values) continue;
    const rows = services.telemetry.attributes(originator.id, [scope as AttributeScope], Object.keys(values));
    const actual = Object.fromEntries(rows.map((r) => [r.key, r.value]));
    failures.push(...listedDifferences(values, actual, options).map((d) => `${scope} attribute ${d}`));
  }
}

/** Runs one case's input from the chain's first node and compares what happened with what it expects. */
async function runCase(
  rules: ScratchRules,
  chainId: string,
  file: ChainTests,
  test: TestCase,
): Promise<CaseResult> {
  const started = performance.now();
  const { services, ruleChains } = rules;
  const engine = ruleChains.engine;
  const failures: string[] = [];
  const seen: Observed = { events: [], arrived: new Map(), relations: new Map(), alarms: [] };
  const originator = await ensureOriginator(
    services,
    test.input.originator ?? file.originator ?? DEFAULT_TEST_ORIGINATOR,
  );
  const msg = newMsg(
    test.input.type,
    originator,
    structuredClone(test.input.data),
    inputMetadata(services, originator, test.input),
  );
  msg.ruleChainId = chainId;
  const unwatch = engine.debugLog.watch(msg.id, (event, m) => {
    if (seen.events.length < TRACE_EVENTS_MAX)
      seen.events.push({ ...event, data: cut(event.data), metadata: cut(event.metadata) });
    if (event.direction === 'IN') {
      const arrived = seen.arrived.get(event.nodeName) ?? [];
      if (arrived.length < MESSAGES_PER_NODE_MAX) arrived.push(m);
      seen.arrived.set(event.nodeName, arrived);
    } else if (event.relation !== null) {
      const relations = seen.relations.get(event.nodeName) ?? new Set();
      relations.add(event.relation);
      seen.relations.set(event.nodeName, relations);
    }
  });
  const onAlarm = (e: AlarmEvent) => seen.alarms.push(e);
  services.ctx.events.on('alarm', onAlarm);
  try {
    const timeoutMs = test.timeoutMs ?? CHAIN_TEST_DEFAULT_TIMEOUT_MS;
    const outcome = await withTimeout(engine.process(msg), timeoutMs);
    if (outcome === 'timeout')
      failures.push(`the chain did not finish with the message within ${timeoutMs} ms`);
  } catch (err) {
    failures.push(`the rule engine failed: ${(err as Error).message}`);
  } finally {
    unwatch();
    services.ctx.events.off('alarm', onAlarm);
  }
  checkRelations(test.expect.relations, seen, failures);
  checkMessages(test.expect.messages, seen, failures);
  checkAlarms(test.expect.alarms, seen, failures);
  checkSaved(services, originator, test.expect, failures);
  return {
    name: test.name,
    passed: failures.length === 0,
    failures,
    durationMs: Math.round((performance.now() - started) * 10) / 10,
    relations: Object.fromEntries([...seen.relations].map(([k, v]) => [k, sorted(v)])),
    trace: seen.events,
  };
}

const notRun = (test: TestCase, why: string): CaseResult => ({
  name: test.name,
  passed: false,
  failures: [why],
  durationMs: 0,
  relations: {},
  trace: [],
});

/**
 * Runs every case in order through one chain of a scratch platform: cases share it (an alarm a case raises
 * is there for the next one to clear), as messages from one device would.
 */
export async function runChainTests(
  rules: ScratchRules,
  chainId: string,
  file: ChainTests,
  options: { onCase?: (result: CaseResult) => void; maxDurationMs?: number } = {},
): Promise<ChainTestReport> {
  const started = performance.now();
  const chain = rules.ruleChains.row(chainId);
  await warmScriptSandbox();
  const cases: CaseResult[] = [];
  const { onCase, maxDurationMs } = options;
  for (const test of file.cases) {
    const late = maxDurationMs !== undefined && performance.now() - started > maxDurationMs;
    const result = late
      ? notRun(test, `not run: the test run took longer than the ${maxDurationMs / 1000} s it may`)
      : await runCase(rules, chainId, file, test);
    cases.push(result);
    onCase?.(result);
  }
  const passed = cases.filter((c) => c.passed).length;
  return {
    chain: chain.name,
    ruleChainId: chainId,
    passed,
    failed: cases.length - passed,
    durationMs: Math.round(performance.now() - started),
    cases,
  };
}

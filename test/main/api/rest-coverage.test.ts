import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { okJson, useSharedPlatform } from './api-kit.ts';

/**
 * ThingsBoard CE 4.3's generated REST client against the running app: every operation of a checked
 * controller is either served (same method and path pattern in the OpenAPI document, with every query
 * parameter the client sends declared; or, for routes the document hides, in Fastify's route table) or
 * listed in docs/rest-coverage.md with the reason it is not. To check a controller, add its name here.
 */
const CHECKED_CONTROLLERS = [
  'Alarm',
  'AlarmComment',
  'ApiKey',
  'Asset',
  'AssetProfile',
  'Auth',
  'CalculatedField',
  'ComponentDescriptor',
  'Customer',
  'Dashboard',
  'Device',
  'DeviceApi',
  'DeviceProfile',
  'EntityQuery',
  'EntityRelation',
  'Event',
  'LoginEndpointApi',
  'OtaPackage',
  'RpcV1',
  'RpcV2',
  'RuleChain',
  'RuleEngine',
  'Telemetry',
  'Tenant',
  'User',
  'WidgetType',
  'WidgetsBundle',
];

const OPERATIONS_FILE = fileURLToPath(
  new URL('../../fixtures/compat/tb-ce-rest-operations.jsonl', import.meta.url),
);
const COVERAGE_DOC = fileURLToPath(new URL('../../../docs/rest-coverage.md', import.meta.url));

interface ClientOperation {
  controller: string;
  method: string;
  /** the client's path, with its query template: /api/customers{?customerIds} */
  path: string;
  query: string[];
  required: string[];
  body: boolean;
}

interface OpenApiOperation {
  parameters?: { name: string; in: string }[];
}

interface NotServed {
  controller: string;
  operation: string;
  reason: string;
}

/** `/api/customer/{customerId}/devices{?page,...}` and `/api/x/{id}?scope=ANY` to `/api/customer/{}/devices`. */
function pathPattern(path: string): string {
  return path
    .replace(/\{\?[^}]*\}/g, '')
    .replace(/\?.*$/, '')
    .replace(/\{[^}]+\}/g, '{}');
}

const operationKey = (o: Pick<ClientOperation, 'method' | 'path'>) => `${o.method} ${o.path}`;

function readOperations(): ClientOperation[] {
  return readFileSync(OPERATIONS_FILE, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ClientOperation);
}

/** The rows of the doc's "Not served" table: | Controller | `METHOD /path` | why |. */
function readNotServed(doc: string): NotServed[] {
  const section = doc.split(/^## Not served$/m)[1]?.split(/^## /m)[0] ?? '';
  const rows: NotServed[] = [];
  for (const line of section.split('\n')) {
    const m = /^\|\s*(\w+)\s*\|\s*`([A-Z]+ [^`]+)`\s*\|\s*(.*?)\s*\|$/.exec(line);
    if (m) rows.push({ controller: m[1]!, operation: m[2]!, reason: m[3]! });
  }
  return rows;
}

/**
 * The block between the coverage markers: one row per checked controller and their total. (The count of
 * the whole client moves with every controller anyone serves: it is printed, not kept in the doc.)
 */
function summaryTable(counts: Map<string, { total: number; served: number }>): string {
  const rows = [...counts].map(([c, n]) => `| ${c} | ${n.served} | ${n.total} |`);
  const owned = [...counts.values()].reduce(
    (a, n) => ({ served: a.served + n.served, total: a.total + n.total }),
    { served: 0, total: 0 },
  );
  return [
    '| Controller | Served | Operations |',
    '| --- | --- | --- |',
    ...rows,
    `| **Checked controllers** | **${owned.served}** | **${owned.total}** |`,
  ].join('\n');
}

const normalizeTable = (t: string) =>
  t
    .split('\n')
    .map((l) => l.replace(/\s*\|\s*/g, '|').replace(/-{3,}/g, '---'))
    .join('\n')
    .trim();

describe("ThingsBoard's generated REST client against the running app", () => {
  const platform = useSharedPlatform();

  it('serves every operation of the checked controllers or says why not', async () => {
    const p = platform();
    const doc = await okJson<{ paths: Record<string, Record<string, OpenApiOperation>> }>(
      p.http('/v3/api-docs'),
    );
    const served = new Map<string, OpenApiOperation>();
    for (const [path, methods] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(methods))
        served.set(`${method.toUpperCase()} ${pathPattern(path)}`, op);
    const documented = (o: ClientOperation) => served.get(`${o.method} ${pathPattern(o.path)}`);
    // Routes hidden from the document (the device HTTP API) are in the route table; their parameters are
    // not described anywhere, so they count as served without the parameter check.
    const hidden = (o: ClientOperation) =>
      p.api.hasRoute({ method: o.method as 'GET', url: pathPattern(o.path).replace(/\{\}/g, ':p') });
    const routeOf = (o: ClientOperation): OpenApiOperation | undefined =>
      documented(o) ??
      (hidden(o) ? { parameters: o.query.map((name) => ({ name, in: 'query' })) } : undefined);

    const operations = readOperations();
    expect(operations).toHaveLength(521);
    const checked = operations.filter((o) => CHECKED_CONTROLLERS.includes(o.controller));
    const coverageDoc = readFileSync(COVERAGE_DOC, 'utf8');
    const notServed = readNotServed(coverageDoc);
    const listed = new Map(notServed.map((n) => [n.operation, n]));

    const problems: string[] = [];
    for (const n of notServed) {
      const op = checked.find((o) => operationKey(o) === n.operation && o.controller === n.controller);
      if (!op) problems.push(`listed as not served but no such ${n.controller} operation: ${n.operation}`);
      if (n.reason.length < 10) problems.push(`no reason given for ${n.operation}`);
    }
    const counts = new Map<string, { total: number; served: number }>();
    for (const o of checked) {
      const route = routeOf(o);
      const count = counts.get(o.controller) ?? { total: 0, served: 0 };
      counts.set(o.controller, count);
      count.total++;
      const entry = listed.get(operationKey(o));
      if (!route) {
        if (!entry) problems.push(`not served and not listed: ${o.controller} ${operationKey(o)}`);
        continue;
      }
      if (entry) problems.push(`served but listed as not served: ${operationKey(o)}`);
      count.served++;
      const declared = new Set((route.parameters ?? []).filter((q) => q.in === 'query').map((q) => q.name));
      const missing = o.query.filter((q) => !declared.has(q));
      if (missing.length)
        problems.push(`${operationKey(o)}: query parameters not declared: ${missing.join(', ')}`);
    }
    const servedAll = operations.filter((o) => routeOf(o)).length;
    const sorted = new Map([...counts].sort(([a], [b]) => a.localeCompare(b)));
    const table = summaryTable(sorted);
    const lines = [...sorted].map(([c, n]) => `  ${c.padEnd(18)} ${n.served}/${n.total}`);
    console.log(
      `ThingsBoard CE 4.3 REST client: ${servedAll}/${operations.length} operations served\n${lines.join('\n')}`,
    );

    const current = /<!-- coverage:start -->\n([\s\S]*?)\n<!-- coverage:end -->/.exec(coverageDoc)?.[1] ?? '';
    if (normalizeTable(current) !== normalizeTable(table))
      problems.push(
        `docs/rest-coverage.md's summary is out of date; between the coverage markers put:\n${table}`,
      );
    expect(problems).toEqual([]);
  });
});

import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  anyJson,
  anyObject,
  expectWellFormed,
  fuzzParams,
  mutationsOf,
  nastyString,
  toJsonText,
} from '../../helpers/fuzz.ts';
import { okJson, useSharedPlatform } from './api-kit.ts';

interface Operation {
  method: string;
  /** OpenAPI path with {params} */
  path: string;
  query: string[];
  hasBody: boolean;
  bodyKeys: string[];
}

/**
 * Routes the fuzzer leaves alone: they end its own session, load minutes of demo data, or wait 10 s for a
 * rule chain's reply by design (the rule engine REST API; its bad input is tested in rule-engine-routes).
 */
const SKIP = [/^\/api\/auth\/logout$/, /^\/api\/sandboard\/demo\//, /^\/api\/rule-engine\//];

function operationsOf(doc: {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { in: string; name: string }[];
        requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
      }
    >
  >;
}): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    if (!path.startsWith('/api/') || SKIP.some((re) => re.test(path))) continue;
    for (const [method, op] of Object.entries(methods)) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      ops.push({
        method: method.toUpperCase(),
        path,
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        hasBody: op.requestBody !== undefined,
        bodyKeys: Object.keys(schema?.properties ?? {}),
      });
    }
  }
  return ops;
}

/**
 * Every operation of the OpenAPI document, with path parameters, query strings and bodies an attacker
 * or a careless client would send. Properties: no 5xx, every error is ThingsBoard's error JSON, and the
 * server still serves afterwards.
 */
describe('REST fuzzing over the OpenAPI document', () => {
  const platform = useSharedPlatform({ bodyLimitBytes: 64 * 1024 });
  let ops: Operation[] = [];
  let token = '';
  let deviceId = '';

  beforeAll(async () => {
    const p = platform();
    token = await p.login();
    ops = operationsOf(await okJson(p.http('/v3/api-docs')));
    deviceId = (
      await okJson<{ id: { id: string } }>(
        p.http('/api/device', { method: 'POST', token, json: { name: 'fuzz target' } }),
      )
    ).id.id;
  });

  it(
    'answers every operation without a 5xx, with error JSON, and keeps serving',
    { timeout: 120_000 },
    async () => {
      const p = platform();
      expect(ops.length).toBeGreaterThan(50);
      const pathValue = fc.oneof(
        fc.uuid(),
        nastyString,
        fc.constant('DEVICE'),
        fc.constant('SERVER_SCOPE'),
        fc.constant(''),
      );
      const queryValue = fc.oneof(
        nastyString,
        fc.constantFrom('0', '10', '-1', '1e300', '1000000000000000', 'true', 'TRUE', 'ASC', 'a,b', '9e18'),
      );
      const request = fc.record({
        op: fc.nat({ max: 10_000 }).map((i) => ops[i % ops.length]!),
        params: fc.array(pathValue, { minLength: 4, maxLength: 4 }),
        query: fc.dictionary(
          fc.oneof(
            fc.constantFrom('page', 'pageSize', 'keys', 'startTs', 'endTs', 'textSearch'),
            fc.string({ maxLength: 8 }),
          ),
          queryValue,
          { maxKeys: 4 },
        ),
        body: fc.oneof(anyJson, anyObject),
        authenticated: fc.boolean(),
        useDevice: fc.boolean(),
        contentType: fc.constantFrom(
          'application/json',
          'application/json',
          'application/json; charset=utf-16',
          'text/plain',
          'application/x-www-form-urlencoded',
        ),
      });
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          let i = 0;
          const path = r.op.path.replace(/\{[^}]+\}/g, (name) =>
            encodeURIComponent(
              (r.useDevice && /id/i.test(name) ? deviceId : r.params[i++ % 4]!).toWellFormed(),
            ),
          );
          const query = new URLSearchParams();
          for (const name of r.op.query) if (r.query[name] !== undefined) query.set(name, r.query[name]);
          for (const [k, v] of Object.entries(r.query)) if (!r.op.query.includes(k)) query.set(k, v);
          const body = r.op.hasBody ? toJsonText(r.body) : undefined;
          const res = await p.http(`${path}?${query.toString()}`, {
            method: r.op.method,
            ...(r.authenticated ? { token } : {}),
            headers: body === undefined ? {} : { 'content-type': r.contentType },
            ...(body === undefined ? {} : { body }),
          });
          await expectWellFormed(res, `${r.op.method} ${path}?${query.toString()}`);
        }),
        fuzzParams(600),
      );
      expect((await p.http('/api/auth/user', { token })).status).toBe(200);
    },
  );

  it(
    'answers near misses of valid bodies (rule chain metadata, table views, reports) without a 5xx',
    { timeout: 120_000 },
    async () => {
      const p = platform();
      // the first property may have deleted the shared device: this one has its own
      const own = await okJson<{ id: { id: string } }>(
        p.http('/api/device', { method: 'POST', token, json: { name: 'fuzz target 2' } }),
      );
      const root = (
        await okJson<{ data: { id: { id: string }; root: boolean }[] }>(
          p.http('/api/ruleChains?page=0&pageSize=10', { token }),
        )
      ).data.find((c) => c.root)!;
      const rootMetadata = await okJson<Record<string, unknown>>(
        p.http(`/api/ruleChain/${root.id.id}/metadata`, { token }),
      );
      const view = {
        entities: { deviceIds: [own.id.id] },
        dimensions: [{ field: 'DEVICE_NAME' }],
        date: { grouping: 'DAY' },
        measures: [{ key: 'temperature', aggregation: 'AVG' }],
        timeRange: { type: 'FIXED', startTs: 0, endTs: 86_400_000 },
      };
      const saved = await p.http('/api/tableView', {
        method: 'POST',
        token,
        json: { name: 'fuzzed', config: view },
      });
      const viewId = saved.ok ? ((await saved.json()) as { id: { id: string } }).id.id : own.id.id;
      const cases = fc.oneof(
        mutationsOf(rootMetadata).map((b) => ['POST', `/api/ruleChain/${root.id.id}/metadata`, b] as const),
        mutationsOf({ config: view, limit: 10 }).map((b) => ['POST', '/api/tableView/preview', b] as const),
        mutationsOf({ name: 'v', config: view }).map((b) => ['POST', '/api/tableView', b] as const),
        mutationsOf({ rangeStartTs: 0, rangeEndTs: 86_400_000, filters: [] }).map(
          (b) => ['POST', `/api/tableView/${viewId}/report`, b] as const,
        ),
      );
      await fc.assert(
        fc.asyncProperty(cases, async ([method, path, body]) => {
          const res = await p.http(path, {
            method,
            token,
            headers: { 'content-type': 'application/json' },
            body: toJsonText(body),
          });
          await expectWellFormed(res, `${method} ${path} ${toJsonText(body).slice(0, 200)}`);
        }),
        fuzzParams(300),
      );
      // the report API server too
      await fc.assert(
        fc.asyncProperty(
          mutationsOf({ viewConfigId: viewId, rangeStartTs: 0, rangeEndTs: 86_400_000 }),
          async (body) => {
            const res = await fetch(`${p.urls.analytics}/apiTrendz/publicApi/buildReport`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', jwt: token },
              body: JSON.stringify(body),
            });
            await expectWellFormed(res, `buildReport ${toJsonText(body).slice(0, 200)}`);
          },
        ),
        fuzzParams(100),
      );
      // the root chain as it was (over whatever version the fuzzed saves left); telemetry flows through it
      const restored = await p.http(`/api/ruleChain/${root.id.id}/metadata`, {
        method: 'POST',
        token,
        json: { ...rootMetadata, version: null },
      });
      expect(restored.status).toBe(200);
      const stored = await p.http(`/api/plugins/telemetry/DEVICE/${own.id.id}/timeseries/ANY`, {
        method: 'POST',
        token,
        json: { after: 1 },
      });
      expect(stored.status).toBe(200);
    },
  );
});

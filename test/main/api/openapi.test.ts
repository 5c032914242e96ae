import { describe, expect, it } from 'vitest';
import { okJson, useSharedPlatform } from './api-kit.ts';

interface Operation {
  tags?: string[];
  summary?: string;
  security?: unknown[];
  parameters?: { name: string; in: string; schema?: unknown }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
}

interface OpenApiDoc {
  openapi: string;
  info: { title: string; version: string };
  components: { securitySchemes: Record<string, { type: string; in: string; name: string }> };
  security?: Record<string, unknown[]>[];
  paths: Record<string, Record<string, Operation>>;
}

/** POST/PUT routes that take no body; every other POST/PUT must declare one. */
const BODYLESS = new Set([
  'POST /api/auth/logout',
  'POST /api/user/{id}/userCredentialsEnabled',
  'POST /api/customer/{customerId}/device/{id}',
  'POST /api/deviceProfile/{id}/default',
  'PUT /api/apiKey/{id}/enabled/{enabled}',
  'POST /api/edge/{edgeId}/device/{deviceId}',
  'POST /api/customer/{customerId}/edge/{edgeId}',
  'POST /api/sandboard/demo/edge-sync',
  'POST /api/sandboard/sandboxes/shipped/{id}/load',
  'POST /api/sandboard/recordings/{id}/stop',
  'POST /api/sandboard/replays/{id}/stop',
  'POST /api/customer/{customerId}/asset/{assetId}',
  'POST /api/edge/{edgeId}/asset/{assetId}',
  'POST /api/assetProfile/{assetProfileId}/default',
  'POST /api/alarm/{alarmId}/ack',
  'POST /api/alarm/{alarmId}/clear',
  'POST /api/alarm/{alarmId}/assign/{assigneeId}',
  'POST /api/ruleChain/{ruleChainId}/root',
  'POST /api/ruleChain/{ruleChainId}/edgeTemplateRoot',
  'POST /api/ruleChain/{ruleChainId}/autoAssignToEdge',
  'POST /api/edge/{edgeId}/ruleChain/{ruleChainId}',
  'POST /api/customer/public/device/{id}',
  'POST /api/customer/public/asset/{assetId}',
  'POST /api/tenant/{tenantId}/device/{id}',
  'POST /api/user/sendActivationMail',
  'POST /api/user/{id}/userCredentialsEnabled',
  'POST /api/customer/{customerId}/dashboard/{dashboardId}',
  'POST /api/customer/public/dashboard/{dashboardId}',
  'POST /api/edge/{edgeId}/dashboard/{dashboardId}',
  'POST /api/sandboard/sandbox/classStart',
  'POST /api/sandboard/sandbox/classStart/reset',
]);

/** Routes that answer a link opened in a browser with a redirect (303), as ThingsBoard does, not with JSON. */
const REDIRECTS = new Set(['GET /api/noauth/activate', 'GET /api/noauth/resetPassword']);

/** Routes the ThingsBoard clients call; the document must describe each. */
const EXPECTED = [
  'POST /api/dashboard',
  'GET /api/tenant/dashboards',
  'GET /api/widgetType',
  'POST /api/alarm',
  'GET /api/alarm/{entityType}/{entityId}',
  'POST /api/asset',
  'GET /api/tenant/assets',
  'POST /api/relation',
  'GET /api/relations',
  'POST /api/entitiesQuery/find',
  'POST /api/alarmsQuery/find',
  'POST /api/ruleChain',
  'GET /api/ruleChain/{ruleChainId}',
  'DELETE /api/ruleChain/{ruleChainId}',
  'POST /api/ruleChain/metadata',
  'POST /api/ruleChain/{ruleChainId}/root',
  'GET /api/ruleChains/export',
  'POST /api/ruleChains/import',
  'GET /api/ruleChain/{ruleChainId}/output/labels',
  'GET /api/ruleNode/{ruleNodeId}/debugIn',
  'GET /api/components',
  'GET /api/component/{componentDescriptorClazz}',
  'GET /api/events/{entityType}/{entityId}/{eventType}',
  'POST /api/events/{entityType}/{entityId}/clear',
  'POST /api/auth/login',
  'POST /api/auth/token',
  'GET /api/auth/user',
  'POST /api/auth/logout',
  'POST /api/user/{id}/userCredentialsEnabled',
  'POST /api/auth/changePassword',
  'POST /api/apiKey',
  'GET /api/apiKeys/{userId}',
  'PUT /api/apiKey/{id}/description',
  'PUT /api/apiKey/{id}/enabled/{enabled}',
  'DELETE /api/apiKey/{id}',
  'POST /api/customer',
  'GET /api/customers',
  'POST /api/user',
  'POST /api/device',
  'GET /api/device/{id}',
  'DELETE /api/device/{id}',
  'GET /api/tenant/devices',
  'GET /api/customer/{customerId}/devices',
  'POST /api/customer/{customerId}/device/{id}',
  'GET /api/device/{id}/credentials',
  'POST /api/device/{id}/credentials',
  'POST /api/device/credentials',
  'POST /api/deviceProfile',
  'GET /api/deviceProfiles',
  'GET /api/deviceProfileInfo/default',
  'POST /api/plugins/telemetry/{entityType}/{entityId}/timeseries/{scope}',
  'GET /api/plugins/telemetry/{entityType}/{entityId}/values/timeseries',
  'GET /api/plugins/telemetry/{entityType}/{entityId}/keys/timeseries',
  'POST /api/plugins/telemetry/{entityType}/{entityId}/attributes/{scope}',
  'POST /api/plugins/telemetry/{entityType}/{entityId}/{scope}',
  'GET /api/plugins/telemetry/{entityType}/{entityId}/values/attributes',
  'GET /api/plugins/telemetry/{entityType}/{entityId}/values/attributes/{scope}',
  'DELETE /api/plugins/telemetry/{entityType}/{entityId}/{scope}',
  'DELETE /api/plugins/telemetry/{entityType}/{entityId}/timeseries/delete',
];

describe('OpenAPI document and explorer', () => {
  const platform = useSharedPlatform();

  async function doc(): Promise<OpenApiDoc> {
    return okJson<OpenApiDoc>(platform().http('/v3/api-docs'));
  }

  function operations(d: OpenApiDoc): [string, Operation][] {
    return Object.entries(d.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]): [string, Operation] => [`${method.toUpperCase()} ${path}`, op]),
    );
  }

  it('serves OpenAPI 3.1 without authentication, with the login-form and API-key security schemes', async () => {
    const d = await doc();
    expect(d.openapi).toMatch(/^3\.1\./);
    expect(d.info.title).toBeTruthy();
    expect(d.components.securitySchemes.HttpLoginForm).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-Authorization',
    });
    expect(d.components.securitySchemes.ApiKeyForm).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-Authorization',
    });
    expect(d.security).toEqual(expect.arrayContaining([{ HttpLoginForm: [] }, { ApiKeyForm: [] }]));
    // login and refresh need no credentials
    expect(d.paths['/api/auth/login']?.post?.security).toEqual([]);
    expect(d.paths['/api/auth/token']?.post?.security).toEqual([]);
  });

  it('describes every /api route with tags, a 200 response schema and a request schema where a body exists', async () => {
    const d = await doc();
    const ops = operations(d);
    const described = new Set(ops.map(([k]) => k));
    for (const route of EXPECTED) expect(described, route).toContain(route);
    const apiOps = ops.filter(([k]) => k.split(' ')[1]!.startsWith('/api/'));
    expect(apiOps.length).toBeGreaterThanOrEqual(EXPECTED.length);
    for (const [route, op] of apiOps) {
      expect(op.tags?.length, `${route} tags`).toBeGreaterThan(0);
      expect(op.summary, `${route} summary`).toBeTruthy();
      if (REDIRECTS.has(route)) expect(op.responses?.['303'], `${route} 303`).toBeDefined();
      else
        // JSON, or text where ThingsBoard answers text (a customer's title, an activation link)
        expect(
          Object.values(op.responses?.['200']?.content ?? {})[0]?.schema,
          `${route} 200 schema`,
        ).toBeDefined();
      const [method] = route.split(' ');
      const body = op.requestBody?.content?.['application/json']?.schema;
      if ((method === 'POST' || method === 'PUT') && !BODYLESS.has(route)) {
        expect(body, `${route} request body schema`).toBeDefined();
      } else {
        expect(op.requestBody, `${route} takes no body`).toBeUndefined();
      }
      for (const param of route.match(/\{(\w+)\}/g) ?? []) {
        const name = param.slice(1, -1);
        expect(
          op.parameters?.some((x) => x.in === 'path' && x.name === name),
          `${route} path parameter ${name}`,
        ).toBe(true);
      }
    }
    // the error shape is documented too
    const deviceGet = d.paths['/api/device/{id}']!.get!;
    expect(JSON.stringify(deviceGet.responses?.['404'])).toContain('errorCode');
    const login = d.paths['/api/auth/login']!.post!;
    expect(JSON.stringify(login.requestBody)).toContain('username');
    expect(JSON.stringify(login.responses?.['200'])).toContain('refreshToken');
  });

  it('hides the explorer plumbing from the document', async () => {
    const d = await doc();
    const paths = Object.keys(d.paths);
    expect(paths.filter((path) => path.startsWith('/swagger-ui') || path.startsWith('/v3/'))).toEqual([]);
  });

  it('redirects /swagger-ui.html to /swagger-ui/, a CSP-protected page whose scripts are served without login', async () => {
    const p = platform();
    const redirect = await p.http('/swagger-ui.html', { redirect: 'manual' });
    expect(redirect.status).toBeGreaterThanOrEqual(301);
    expect(redirect.status).toBeLessThanOrEqual(308);
    expect(redirect.headers.get('location')).toBe('/swagger-ui/');
    await redirect.body?.cancel();

    const page = await p.http('/swagger-ui/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    const html = await page.text();
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, inline] of scripts) {
      expect(attrs).toMatch(/src=/);
      expect(inline!.trim()).toBe(''); // the CSP forbids inline scripts, so the page has none
    }
    const srcs = scripts.map(([, attrs]) => /src="([^"]+)"/.exec(attrs!)![1]!);
    expect(srcs.some((s) => s.endsWith('swagger-ui-bundle.js'))).toBe(true);

    for (const src of srcs) {
      const url = new URL(src, `${p.urls.http}/swagger-ui/`);
      const asset = await fetch(url);
      expect(asset.status, url.pathname).toBe(200);
      expect(asset.headers.get('content-type'), url.pathname).toMatch(/javascript/);
      expect(asset.headers.get('content-security-policy'), url.pathname).toBeTruthy();
      expect((await asset.text()).length).toBeGreaterThan(0);
    }
    const bundle = await fetch(`${p.urls.http}/swagger-ui/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    await bundle.body?.cancel();
  });

  it('serves only the Swagger UI assets from its folder', async () => {
    const p = platform();
    for (const path of [
      '/swagger-ui/package.json',
      '/swagger-ui/index.html',
      '/swagger-ui/%2e%2e/package.json',
    ]) {
      const res = await p.http(path);
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
      await res.body?.cancel();
    }
  });
});

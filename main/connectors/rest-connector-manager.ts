/**
 * The app's REST connectors: each a saved rest.json (durable, table rest_connectors) with its own gateway
 * (a gateway device on the embedded platform, or a token on another platform) and, while started, its
 * HTTP(S) server. Started and stopped from the "REST Connector" page through /api/sandboard/restConnectors.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { NULL_UUID } from '../../shared/schemas/common.ts';
import {
  formatRestConfigIssues,
  validateRestConfig,
  type ConnectorState,
  type ConvertersInfo,
  type ConnectorTarget,
  type OutgoingLogEntry,
  type RequestLogEntry,
  type RestConnectorDetails,
  type RestConnectorSummary,
  type RestEndpointInfo,
  type SaveRestConnectorRequest,
  type TestRequest,
  type TestResponse,
} from '../../shared/schemas/rest-connector.ts';
import type { Principal } from '../platform/auth/principal.ts';
import {
  ErrorCode,
  invalidArgument,
  isUniqueViolation,
  notFound,
  PlatformError,
} from '../platform/errors.ts';
import { parseJson } from '../platform/paging.ts';
import type { Services } from '../platform/services.ts';
import { ensureSelfSignedCertificate } from '../gateway/connectors/rest/certificates.ts';
import { loadRestConfig, RestConfigError } from '../gateway/connectors/rest/config.ts';
import {
  convertersDirOf,
  listConverterModules,
  SAMPLE_CONVERTER,
} from '../gateway/connectors/rest/converters.ts';
import { curlCommand } from '../gateway/connectors/rest/curl.ts';
import { httpCall } from '../gateway/connectors/rest/outgoing.ts';
import { describeEndpoints, type LogLevel } from '../gateway/connectors/rest/rest-connector.ts';
import { GatewayThread } from '../gateway/gateway-thread.ts';

export interface RestConnectorManagerOptions {
  services: Services;
  dataDir: string;
  /** the embedded broker's URL (mqtt://host:port), once it listens */
  mqttUrl: () => string | undefined;
  log?: (level: LogLevel, line: string) => void;
  /** largest request body a connector takes (default 1 MiB) */
  bodyLimitBytes?: number;
}

interface ConnectorRow {
  id: string;
  created_time: number;
  updated_time: number;
  name: string;
  gateway_name: string;
  config: string;
  target: string | null;
  gateway_device_id: string | null;
  autostart: number;
}

/** The manager acts on the embedded platform as a tenant administrator (the caller was checked). */
const CONNECTORS: Principal = {
  userId: NULL_UUID,
  email: 'rest-connector@sandboard.local',
  authority: 'TENANT_ADMIN',
  tenantId: NULL_UUID,
  customerId: null,
  sessionId: null,
  via: 'API_KEY',
};

const conflict = (message: string) => new PlatformError(409, ErrorCode.GENERAL, message);
const ZERO = { requests: 0, failedRequests: 0, datapoints: 0, outgoing: 0, failedOutgoing: 0 };

/** A broker listening on every interface is reached on loopback. */
function loopbackUrl(mqttUrl: string): string {
  const url = new URL(mqttUrl);
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  if (url.hostname === '[::]') url.hostname = '[::1]';
  return url.toString().replace(/\/$/, '');
}

export class RestConnectorManager {
  private readonly options: RestConnectorManagerOptions;
  private readonly services: Services;
  /** running connectors, each a gateway in its own worker thread */
  private readonly runtimes = new Map<string, GatewayThread>();
  private readonly starting = new Map<string, Promise<void>>();
  private readonly errors = new Map<string, string>();
  private closed = false;

  constructor(options: RestConnectorManagerOptions) {
    this.options = options;
    this.services = options.services;
  }

  private rows(): ConnectorRow[] {
    return this.services.ctx.db.all<ConnectorRow>(
      'SELECT * FROM rest_connectors ORDER BY created_time, name',
    );
  }

  private row(id: string): ConnectorRow {
    const row = this.services.ctx.db.get<ConnectorRow>('SELECT * FROM rest_connectors WHERE id = ?', [id]);
    if (!row) throw notFound(`REST connector [${id}] is not found`);
    return row;
  }

  private state(id: string): ConnectorState {
    if (this.starting.has(id)) return 'starting';
    if (this.runtimes.has(id)) return 'running';
    return this.errors.has(id) ? 'failed' : 'stopped';
  }

  private async summary(row: ConnectorRow): Promise<RestConnectorSummary> {
    const runtime = this.runtimes.get(row.id);
    let live = runtime ? await runtime.state().catch(() => null) : null;
    // the thread may have ended while it was asked: a failed connector shows no address
    if (this.runtimes.get(row.id) !== runtime) live = null;
    return {
      id: row.id,
      name: row.name,
      gatewayName: row.gateway_name,
      gatewayDeviceId: row.gateway_device_id,
      target: parseJson(row.target) as ConnectorTarget,
      autostart: row.autostart === 1,
      state: this.state(row.id),
      lastError: this.errors.get(row.id) ?? null,
      baseUrl: live?.baseUrl ?? null,
      mqttConnected: live?.connected ?? false,
      counters: live?.counters ?? { ...ZERO },
      createdTime: row.created_time,
      updatedTime: row.updated_time,
    };
  }

  private async details(row: ConnectorRow): Promise<RestConnectorDetails> {
    const config = JSON.parse(row.config) as unknown;
    return { ...(await this.summary(row)), config, validation: validateRestConfig(config) };
  }

  list(): Promise<RestConnectorSummary[]> {
    return Promise.all(this.rows().map((r) => this.summary(r)));
  }

  get(id: string): Promise<RestConnectorDetails> {
    return this.details(this.row(id));
  }

  private checked(req: SaveRestConnectorRequest): void {
    const v = validateRestConfig(req.config);
    if (!v.valid) throw invalidArgument(`rest.json is not valid:\n${formatRestConfigIssues(v.errors)}`);
    if (req.target?.url !== undefined) {
      let url: URL;
      try {
        url = new URL(req.target.url);
      } catch {
        throw invalidArgument(`target.url: '${req.target.url}' is not a URL (mqtt://host:port)`);
      }
      if (!/^mqtts?:$/.test(url.protocol))
        throw invalidArgument('target.url: must be mqtt://host:port or mqtts://host:port');
      if (!req.target.token)
        throw invalidArgument('target.token: is required with target.url (the gateway access token)');
      if ((req.target.ca !== undefined || req.target.insecure) && url.protocol !== 'mqtts:')
        throw invalidArgument('target.ca and target.insecure are for an mqtts:// platform');
      if (req.target.ca !== undefined && !req.target.ca.includes('-----BEGIN CERTIFICATE-----'))
        throw invalidArgument('target.ca: must be a PEM certificate (-----BEGIN CERTIFICATE-----)');
    }
  }

  async create(req: SaveRestConnectorRequest): Promise<RestConnectorDetails> {
    this.checked(req);
    await this.services.storage.admit();
    const id = randomUUID();
    const now = this.services.ctx.now();
    try {
      await this.services.ctx.db.write((w) =>
        w.run(
          `INSERT INTO rest_connectors (id, created_time, updated_time, name, gateway_name, config, target, gateway_device_id, autostart)
           VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?)`,
          [
            id,
            now,
            now,
            req.name,
            req.gatewayName ?? req.name,
            JSON.stringify(req.config),
            JSON.stringify(req.target ?? {}),
            req.autostart ? 1 : 0,
          ],
        ),
      );
    } catch (err) {
      if (isUniqueViolation(err))
        throw invalidArgument(`A REST connector named '${req.name}' already exists`);
      throw err;
    }
    return this.get(id);
  }

  /** Replaces the saved configuration; a running connector restarts with it. */
  async update(id: string, req: SaveRestConnectorRequest): Promise<RestConnectorDetails> {
    const before = this.row(id);
    this.checked(req);
    if (this.starting.has(id)) throw conflict('The connector is starting; try again in a moment');
    await this.services.storage.admit();
    try {
      await this.services.ctx.db.write((w) =>
        w.run(
          `UPDATE rest_connectors SET updated_time = ?, name = ?, gateway_name = ?, config = ?, target = ?, autostart = ? WHERE id = ?`,
          [
            this.services.ctx.now(),
            req.name,
            req.gatewayName ?? req.name,
            JSON.stringify(req.config),
            JSON.stringify(req.target ?? {}),
            req.autostart ? 1 : 0,
            id,
          ],
        ),
      );
    } catch (err) {
      if (isUniqueViolation(err))
        throw invalidArgument(`A REST connector named '${req.name}' already exists`);
      throw err;
    }
    const after = this.row(id);
    // autostart alone is not something the running gateway uses: no restart (and no lost counters) for it
    const changed = (['name', 'gateway_name', 'config', 'target'] as const).some(
      (k) => before[k] !== after[k],
    );
    if (this.runtimes.has(id) && changed) {
      await this.stop(id);
      await this.start(id);
    } else if (before.config !== after.config) this.errors.delete(id);
    return this.get(id);
  }

  async delete(id: string): Promise<void> {
    this.row(id);
    await this.starting.get(id)?.catch(() => undefined);
    await this.stop(id);
    await this.services.ctx.db.write((w) => w.run('DELETE FROM rest_connectors WHERE id = ?', [id]));
    this.errors.delete(id);
  }

  /** The gateway device on the embedded platform (created, or made a gateway) and its token. */
  private async gatewayDevice(name: string): Promise<{ deviceId: string; token: string }> {
    const devices = this.services.devices;
    let row = devices.findRowByName(name);
    if (!row) {
      const device = await devices.save(
        { name, additionalInfo: { gateway: true, description: 'Gateway of a REST connector (Sandboard)' } },
        CONNECTORS,
      );
      row = devices.findRow(device.id.id)!;
    } else {
      const info = parseJson(row.additional_info);
      if (info.gateway !== true)
        await devices.save(
          {
            id: { id: row.id },
            name: row.name,
            label: row.label,
            deviceProfileId: { id: row.device_profile_id },
            customerId: { id: row.customer_id ?? NULL_UUID },
            additionalInfo: { ...info, gateway: true },
          },
          CONNECTORS,
        );
    }
    return { deviceId: row.id, token: devices.getCredentials(row.id, CONNECTORS).credentialsId };
  }

  async start(id: string): Promise<RestConnectorSummary> {
    if (this.closed) throw new PlatformError(503, ErrorCode.GENERAL, 'Sandboard is stopping');
    const row = this.row(id);
    if (this.runtimes.has(id)) return this.summary(row);
    const pending = this.starting.get(id);
    if (pending) {
      await pending.catch(() => undefined);
      return this.summary(this.row(id));
    }
    const run = this.launch(row);
    this.starting.set(id, run);
    try {
      await run;
      this.errors.delete(id);
    } catch (err) {
      this.errors.set(id, (err as Error).message);
      throw new PlatformError(
        err instanceof RestConfigError ? 400 : 502,
        ErrorCode.GENERAL,
        `REST connector '${row.name}' did not start: ${(err as Error).message}`,
      );
    } finally {
      this.starting.delete(id);
    }
    return this.summary(this.row(id));
  }

  private async launch(row: ConnectorRow): Promise<void> {
    // a bad rest.json is refused here, with its paths, before a thread starts
    const rawConfig = JSON.parse(row.config) as unknown;
    loadRestConfig(rawConfig);
    const target = parseJson(row.target) as ConnectorTarget;
    let platformUrl: string;
    let token: string;
    let tls: { ca?: string; rejectUnauthorized?: boolean } = {};
    if (target.url) {
      platformUrl = target.url;
      token = target.token ?? '';
      tls = {
        ...(target.ca !== undefined ? { ca: target.ca } : {}),
        ...(target.insecure ? { rejectUnauthorized: false } : {}),
      };
    } else {
      const mqtt = this.options.mqttUrl();
      if (!mqtt) throw new Error('the embedded MQTT broker is not listening yet');
      platformUrl = loopbackUrl(mqtt);
      const gw = await this.gatewayDevice(row.gateway_name);
      token = gw.token;
      if (gw.deviceId !== row.gateway_device_id)
        await this.services.ctx.db.write((w) =>
          w.run('UPDATE rest_connectors SET gateway_device_id = ? WHERE id = ?', [gw.deviceId, row.id]),
        );
    }
    const runtime = await GatewayThread.start({
      name: row.name,
      platformUrl,
      token,
      rawConfig,
      ...tls,
      dataDir: this.options.dataDir,
      ...(this.options.bodyLimitBytes !== undefined ? { bodyLimitBytes: this.options.bodyLimitBytes } : {}),
      ...(this.options.log ? { log: this.options.log } : {}),
      onExit: (reason) => {
        if (this.runtimes.get(row.id) !== runtime) return;
        this.runtimes.delete(row.id);
        this.errors.set(row.id, reason);
        this.options.log?.('error', `[${row.name}] ${reason}`);
      },
    });
    if (this.closed) {
      await runtime.stop();
      throw new Error('Sandboard is stopping');
    }
    this.runtimes.set(row.id, runtime);
  }

  async stop(id: string): Promise<RestConnectorSummary> {
    const row = this.row(id);
    await this.starting.get(id)?.catch(() => undefined);
    const runtime = this.runtimes.get(id);
    if (runtime) {
      this.runtimes.delete(id);
      await runtime.stop();
    }
    this.errors.delete(id);
    return this.summary(row);
  }

  /** Starts the connectors saved with autostart; a failure is kept as the connector's lastError. */
  async autostart(): Promise<void> {
    for (const row of this.rows()) {
      if (row.autostart !== 1) continue;
      await this.start(row.id).catch((err: unknown) =>
        this.options.log?.('error', `[${row.name}] autostart failed: ${(err as Error).message}`),
      );
    }
  }

  private runtime(id: string): GatewayThread {
    const row = this.row(id);
    const runtime = this.runtimes.get(id);
    if (!runtime) throw conflict(`REST connector '${row.name}' is not running: start it first`);
    return runtime;
  }

  /** The custom converter modules every connector of this data directory can use. */
  converters(): ConvertersInfo {
    const dir = convertersDirOf(this.options.dataDir);
    return { dir, modules: listConverterModules(dir), sample: SAMPLE_CONVERTER };
  }

  /** Endpoints with curl commands; from the saved configuration when the connector is stopped. */
  async endpoints(id: string): Promise<RestEndpointInfo[]> {
    const runtime = this.runtimes.get(id);
    if (runtime) return runtime.endpoints();
    const row = this.row(id);
    let config;
    try {
      config = loadRestConfig(JSON.parse(row.config));
    } catch (err) {
      throw invalidArgument((err as Error).message);
    }
    // a stopped connector: the endpoints as they will be, described without listening
    return describeEndpoints(config, null);
  }

  async requestLog(id: string, limit?: number): Promise<RequestLogEntry[]> {
    this.row(id);
    return (await this.runtimes.get(id)?.requestLog(limit)) ?? [];
  }

  async outgoingLog(id: string, limit?: number): Promise<OutgoingLogEntry[]> {
    this.row(id);
    return (await this.runtimes.get(id)?.outgoingLog(limit)) ?? [];
  }

  /** Sends a request to a running connector (as a client would) and returns its answer. */
  async test(id: string, t: TestRequest): Promise<TestResponse> {
    const runtime = this.runtime(id);
    const base = runtime.baseUrl!;
    if (!t.path.startsWith('/')) throw invalidArgument("path: must start with '/'");
    const url = new URL(base + t.path);
    for (const [k, v] of Object.entries(t.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { ...(t.headers ?? {}) };
    let body: string | Buffer | undefined;
    if ([t.json !== undefined, t.text !== undefined, t.form !== undefined].filter(Boolean).length > 1)
      throw invalidArgument('Give one of json, text or form');
    if (t.json !== undefined) {
      body = JSON.stringify(t.json);
      headers['content-type'] ??= 'application/json';
    } else if (t.text !== undefined) body = t.text;
    else if (t.form) {
      const form = new FormData();
      for (const [k, v] of Object.entries(t.form.fields ?? {})) form.append(k, v);
      for (const f of t.form.files ?? [])
        form.append(
          f.name,
          new Blob([f.content], { type: f.contentType ?? 'application/octet-stream' }),
          f.filename,
        );
      const encoded = new Request('http://test.local/', { method: 'POST', body: form });
      headers['content-type'] = encoded.headers.get('content-type')!;
      body = Buffer.from(await encoded.arrayBuffer());
    }
    const started = performance.now();
    const res = await httpCall({
      method: t.method.toUpperCase(),
      url: url.toString(),
      headers,
      ...(body !== undefined ? { body } : {}),
      security: t.auth
        ? { type: 'basic', username: t.auth.username, password: t.auth.password }
        : { type: 'anonymous' },
      sslVerify: false,
      timeoutMs: 130_000,
      allowRedirects: false,
    }).catch((err: unknown) => {
      throw new PlatformError(
        502,
        ErrorCode.GENERAL,
        `The connector did not answer: ${(err as Error).message}`,
      );
    });
    const outHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers))
      if (v !== undefined) outHeaders[k] = Array.isArray(v) ? v.join(', ') : v;
    return {
      status: res.status,
      headers: outHeaders,
      body: res.body.toString('utf8'),
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      curl: curlCommand({
        method: t.method.toUpperCase(),
        url: url.toString(),
        insecure: url.protocol === 'https:',
        ...(t.auth ? { username: t.auth.username, password: t.auth.password } : {}),
        ...(t.headers ? { headers: t.headers } : {}),
        ...(t.json !== undefined ? { json: t.json } : {}),
        ...(t.text !== undefined ? { text: t.text } : {}),
        ...(t.form
          ? {
              form: {
                fields: t.form.fields ?? {},
                files: (t.form.files ?? []).map((f) => ({ name: f.name, filename: f.filename })),
              },
            }
          : {}),
      }),
    };
  }

  /**
   * Makes a self-signed certificate and key for the connector (in <data dir>/rest-connectors/<id>/) and
   * switches its server to HTTPS with them; a running connector restarts.
   */
  async selfSignedCertificate(id: string): Promise<RestConnectorDetails> {
    const row = this.row(id);
    const config = JSON.parse(row.config) as Record<string, unknown>;
    const legacy = typeof config.server !== 'object' || config.server === null;
    const server = (legacy ? config : config.server) as Record<string, unknown>;
    const host = typeof server.host === 'string' ? server.host : '127.0.0.1';
    let pair;
    try {
      pair = await ensureSelfSignedCertificate(join(this.options.dataDir, 'rest-connectors', id), host);
    } catch (err) {
      throw new PlatformError(500, ErrorCode.GENERAL, (err as Error).message);
    }
    server.SSL = true;
    server.security = {
      ...(typeof server.security === 'object' ? server.security : {}),
      cert: pair.cert,
      key: pair.key,
    };
    const target = parseJson(row.target) as ConnectorTarget;
    return this.update(id, {
      name: row.name,
      gatewayName: row.gateway_name,
      config,
      autostart: row.autostart === 1,
      ...(target.url ? { target } : {}),
    });
  }

  /** Stops every connector (the platform is stopping). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.starting.values()].map((p) => p.catch(() => undefined)));
    const all = [...this.runtimes.values()];
    this.runtimes.clear();
    await Promise.all(all.map((r) => r.stop().catch(() => undefined)));
  }
}

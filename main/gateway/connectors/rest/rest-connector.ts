/**
 * The REST connector: an HTTP(S) server with one endpoint per mapping entry and method (basic or
 * anonymous), whose requests are converted into device data and sent through the gateway's MQTT session;
 * attribute request endpoints; outgoing calls on shared attribute updates and server-side RPC.
 *
 * Status codes: 200 stored (after the platform's PUBACK); 400 malformed body or nothing found for the
 * device name; 401 bad or missing credentials (with WWW-Authenticate); 404 unknown path; 405 method not
 * configured (with Allow); 408 remote response or attribute request timed out; 413 body too large; 415
 * nothing to convert; 500 converter failure (naming it); 502 / 503 / 504 the platform refused, is not
 * connected, or did not acknowledge.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type {
  ConnectorCounters,
  OutgoingLogEntry,
  RequestLogEntry,
  RestEndpointInfo,
} from '../../../../shared/schemas/rest-connector.ts';
import type { AttributeUpdate, GatewayClient, GatewayRpcRequest } from '../../gateway-client.ts';
import { PlatformSendError } from '../../gateway-client.ts';
import type {
  AttributeRequestSpec,
  AttributeUpdateSpec,
  EndpointSecurityConfig,
  MappingSpec,
  OutgoingSpec,
  RestConnectorConfig,
  RpcSpec,
} from './config.ts';
import {
  ConversionError,
  ConverterFailure,
  createConverter,
  type ConvertedData,
  type UplinkConverter,
} from './converters.ts';
import { curlCommand, exampleBody, examplePath } from './curl.ts';
import { lookup, parseTemplate, render, renderString, textOf } from './expressions.ts';
import { RingLog } from './logs.ts';
import { bodyValue, callWithTries, type OutgoingRequest } from './outgoing.ts';
import { compilePathTemplate, parseBody, readBody, RequestError } from './request-data.ts';

// node:http imported as an ES module builds its namespace, and that loads Node's fetch (undici): tens of ms of every start
const { createServer: createHttpServer } = process.getBuiltinModule('node:http');

export type LogLevel = 'info' | 'warn' | 'error';

export interface RestConnectorOptions {
  name: string;
  config: RestConnectorConfig;
  gateway: GatewayClient;
  /** where custom converter classes are (<data dir>/converters) */
  convertersDir: string;
  /** largest request body (default 1 MiB); larger: 413 */
  bodyLimitBytes?: number;
  /** listen on this port instead of server.port (tests, several connectors) */
  portOverride?: number;
  log?: (level: LogLevel, line: string) => void;
  requestLogSize?: number;
  outgoingLogSize?: number;
}

type Handler =
  | { kind: 'mapping'; spec: MappingSpec; converter: UplinkConverter; security: SecurityCheck }
  | { kind: 'attributeRequest'; spec: AttributeRequestSpec; security: SecurityCheck };

interface Route {
  endpoint: string;
  template: { regex: RegExp; names: string[] } | null;
  methods: Map<string, Handler>;
}

interface SecurityCheck {
  type: 'basic' | 'anonymous';
  /** sha256 of "Basic base64(user:pass)" */
  digest?: Buffer;
}

interface RemoteWaiter {
  attribute: string;
  resolve(value: unknown): void;
}

class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

// one-shot hash(): about half the cost of createHash() per request
const sha256 = (s: string) => hash('sha256', s, 'buffer');

function securityCheck(sec: EndpointSecurityConfig): SecurityCheck {
  if (sec.type === 'anonymous') return { type: 'anonymous' };
  const token = Buffer.from(`${sec.username}:${sec.password}`).toString('base64');
  return { type: 'basic', digest: sha256(`Basic ${token}`) };
}

/** Constant-time comparison of the Authorization header with the expected one. */
function authorized(check: SecurityCheck, header: string | undefined): boolean {
  if (check.type === 'anonymous') return true;
  if (!header) return false;
  const normalized = header.replace(/^basic\s+/i, 'Basic ').trim();
  return timingSafeEqual(sha256(normalized), check.digest!);
}

function datapointsOf(c: ConvertedData): number {
  let n = Object.keys(c.attributes).length;
  for (const e of c.telemetry) n += Object.keys(e.values).length;
  return n;
}

function firstHeader(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** Parses the built-in get / set RPC params: "requestUrlExpression=...;value=...;HTTPMethod=GET". */
export function parseBuiltinParams(params: unknown): Record<string, string> | null {
  if (typeof params !== 'string' || !params.includes('=')) return null;
  const keys =
    'requestUrlExpression|value|valueExpression|HTTPMethod|httpMethod|httpHeaders|timeout|responseTimeout|tries';
  const out: Record<string, string> = {};
  for (const part of params.split(new RegExp(`;(?=\\s*(?:${keys})\\s*=)`))) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out.requestUrlExpression ? out : null;
}

/**
 * Every endpoint and method of a configuration with a ready-made curl command (base: the running
 * connector's URL; null: described from the configuration).
 */
export function describeEndpoints(config: RestConnectorConfig, base: string | null): RestEndpointInfo[] {
  const out: RestEndpointInfo[] = [];
  const insecure = config.server.ssl;
  const scheme = config.server.ssl ? 'https' : 'http';
  const urlOf = (path: string) =>
    `${base ?? `${scheme}://${config.server.host}:${config.server.port}`}${path}`;
  for (const spec of config.mapping) {
    const pathVars = compilePathTemplate(spec.endpoint)?.names ?? [];
    const example = exampleBody(spec.converter, pathVars);
    for (const method of spec.methods) {
      const path = examplePath(spec.endpoint);
      const get = method === 'GET' || method === 'HEAD';
      const query =
        get && example
          ? `?${new URLSearchParams(Object.entries(example).map(([k, v]): [string, string] => [k, textOf(v)]))}`
          : '';
      const basic = spec.security.type === 'basic';
      out.push({
        kind: 'mapping',
        index: spec.index,
        method,
        path: spec.endpoint,
        url: base ? `${base}${spec.endpoint}` : null,
        security: spec.security.type,
        converter: spec.converter.type === 'json' ? 'json' : spec.converter.extension,
        response: spec.response.kind,
        exampleBody: example,
        curl: curlCommand({
          method,
          url: urlOf(path + query),
          insecure,
          ...(basic ? { username: spec.security.username, password: spec.security.password } : {}),
          ...(!get && example ? { json: example } : {}),
        }),
      });
    }
  }
  for (const spec of config.attributeRequests) {
    const example: Record<string, unknown> = {};
    for (const p of parseTemplate(spec.deviceNameExpression)) if (p.token) example[p.token] = 'SN-001';
    for (const p of parseTemplate(spec.attributeNameExpression))
      if (p.token) example[p.token] = `sharedKey${Object.keys(example).length}`;
    for (const method of spec.methods) {
      const get = method === 'GET' || method === 'HEAD';
      const query = get
        ? `?${new URLSearchParams(Object.entries(example).map(([k, v]): [string, string] => [k, textOf(v)]))}`
        : '';
      const basic = spec.security.type === 'basic';
      out.push({
        kind: 'attributeRequest',
        index: spec.index,
        method,
        path: spec.endpoint,
        url: base ? `${base}${spec.endpoint}` : null,
        security: spec.security.type,
        converter: null,
        response: 'attributes',
        exampleBody: example,
        curl: curlCommand({
          method,
          url: urlOf(examplePath(spec.endpoint) + query),
          insecure,
          ...(basic ? { username: spec.security.username, password: spec.security.password } : {}),
          ...(!get ? { json: example } : {}),
        }),
      });
    }
  }
  return out;
}

export class RestConnector {
  readonly name: string;
  private readonly config: RestConnectorConfig;
  private readonly gateway: GatewayClient;
  private readonly options: RestConnectorOptions;
  private readonly bodyLimit: number;
  private readonly exact = new Map<string, Route>();
  private readonly templated: Route[] = [];
  private readonly waiters = new Map<string, RemoteWaiter[]>();
  private readonly requests: RingLog<RequestLogEntry>;
  private readonly outgoing: RingLog<OutgoingLogEntry>;
  private readonly inFlight = new Set<AbortController>();
  private server: Server | null = null;
  private stopped = false;
  /** 'request': a request was answered; 'outgoing': an outgoing call finished (all its tries) */
  readonly events = new EventEmitter<{ request: [RequestLogEntry]; outgoing: [OutgoingLogEntry] }>();
  readonly counters: ConnectorCounters = {
    requests: 0,
    failedRequests: 0,
    datapoints: 0,
    outgoing: 0,
    failedOutgoing: 0,
  };
  private readonly onAttributes = (u: AttributeUpdate) => this.handleAttributeUpdate(u);
  private readonly onRpc = (r: GatewayRpcRequest) => void this.handleRpc(r);

  private constructor(options: RestConnectorOptions) {
    this.name = options.name;
    this.options = options;
    this.config = options.config;
    this.gateway = options.gateway;
    this.bodyLimit = options.bodyLimitBytes ?? 1024 * 1024;
    this.requests = new RingLog(options.requestLogSize ?? 500);
    this.outgoing = new RingLog(options.outgoingLogSize ?? 200);
  }

  /** Builds the converters, listens, and starts answering the gateway's attribute updates and RPC. */
  static async start(options: RestConnectorOptions): Promise<RestConnector> {
    const c = new RestConnector(options);
    await c.buildRoutes();
    await c.listen();
    c.gateway.on('attributes', c.onAttributes);
    c.gateway.on('rpc', c.onRpc);
    return c;
  }

  private log(level: LogLevel, line: string): void {
    this.options.log?.(level, `[${this.name}] ${line}`);
  }

  private route(endpoint: string): Route {
    const existing = this.exact.get(endpoint) ?? this.templated.find((r) => r.endpoint === endpoint);
    if (existing) return existing;
    const template = compilePathTemplate(endpoint);
    const r: Route = { endpoint, template, methods: new Map() };
    if (template) this.templated.push(r);
    else this.exact.set(endpoint, r);
    return r;
  }

  private async buildRoutes(): Promise<void> {
    for (const spec of this.config.mapping) {
      let converter: UplinkConverter;
      try {
        converter = await createConverter(spec.converter, this.options.convertersDir);
      } catch (err) {
        throw new Error(`mapping[${spec.index}] (${spec.endpoint}): ${(err as Error).message}`, {
          cause: err,
        });
      }
      const security = securityCheck(spec.security);
      for (const m of spec.methods)
        this.route(spec.endpoint).methods.set(m, { kind: 'mapping', spec, converter, security });
    }
    for (const spec of this.config.attributeRequests) {
      const security = securityCheck(spec.security);
      for (const m of spec.methods)
        this.route(spec.endpoint).methods.set(m, { kind: 'attributeRequest', spec, security });
    }
  }

  private async listen(): Promise<void> {
    const { server: cfg } = this.config;
    const handler = (req: IncomingMessage, res: ServerResponse) => void this.handle(req, res);
    let server: Server;
    if (cfg.ssl) {
      const read = (path: string | undefined, what: string) => {
        if (!path) throw new Error(`server.security.${what} is required with SSL`);
        try {
          return readFileSync(path);
        } catch (err) {
          throw new Error(
            `cannot read the ${what} file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
            { cause: err },
          );
        }
      };
      server = createHttpsServer({ cert: read(cfg.cert, 'cert'), key: read(cfg.key, 'key') }, handler);
    } else {
      server = createHttpServer(handler);
    }
    server.keepAliveTimeout = 65_000;
    const port = this.options.portOverride ?? cfg.port;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'EADDRINUSE') reject(new Error(`port ${port} on ${cfg.host} is already in use`));
        else if (err.code === 'EACCES') reject(new Error(`no permission to listen on ${cfg.host}:${port}`));
        else reject(err);
      });
      server.listen(port, cfg.host, () => resolve());
    });
    server.on('error', (err) => this.log('error', `server error: ${err.message}`));
    this.server = server;
  }

  /** http(s)://host:port while running. */
  get baseUrl(): string | null {
    if (!this.server) return null;
    const addr = this.server.address() as AddressInfo | null;
    if (!addr) return null;
    const host = this.config.server.host === '0.0.0.0' ? '127.0.0.1' : this.config.server.host;
    const h = host.includes(':') ? `[${host === '::' ? '::1' : host}]` : host;
    return `${this.config.server.ssl ? 'https' : 'http'}://${h}:${addr.port}`;
  }

  get port(): number | null {
    return (this.server?.address() as AddressInfo | null)?.port ?? null;
  }

  requestLog(limit?: number): RequestLogEntry[] {
    return this.requests.latest(limit);
  }

  outgoingLog(limit?: number): OutgoingLogEntry[] {
    return this.outgoing.latest(limit);
  }

  /** Every endpoint and method with a ready-made curl command. */
  endpoints(): RestEndpointInfo[] {
    return describeEndpoints(this.config, this.baseUrl);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.gateway.off('attributes', this.onAttributes);
    this.gateway.off('rpc', this.onRpc);
    for (const list of this.waiters.values()) for (const w of list) w.resolve(undefined);
    this.waiters.clear();
    for (const c of this.inFlight) c.abort();
    const server = this.server;
    if (server) {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
  }

  // -------------------------------------------------------------------------------------------------------
  // Incoming requests
  // -------------------------------------------------------------------------------------------------------

  private match(path: string): { route: Route; params: Record<string, string> } | null {
    const exact = this.exact.get(path);
    if (exact) return { route: exact, params: {} };
    for (const route of this.templated) {
      const m = route.template!.regex.exec(path);
      if (m) {
        const params: Record<string, string> = {};
        route.template!.names.forEach((name, i) => {
          try {
            params[name] = decodeURIComponent(m[i + 1]!);
          } catch {
            throw new HttpError(400, `Path variable ${name}: '${m[i + 1]}' is not valid percent-encoding`);
          }
        });
        return { route, params };
      }
    }
    return null;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const time = Date.now();
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
    const method = (req.method ?? 'GET').toUpperCase();
    let device: string | null = null;
    let datapoints = 0;
    let warnings: string[] = [];
    let status = 500;
    let error: string | null = null;
    try {
      const found = this.match(path);
      if (!found) throw new HttpError(404, `No endpoint ${path} on this connector`);
      const handler = found.route.methods.get(method);
      if (!handler) {
        const allow = [...found.route.methods.keys()].join(', ');
        throw new HttpError(
          405,
          `${method} is not configured for ${found.route.endpoint} (allowed: ${allow})`,
          {
            allow,
          },
        );
      }
      if (!authorized(handler.security, req.headers.authorization)) {
        throw new HttpError(401, 'Wrong or missing credentials (HTTP basic authentication)', {
          'www-authenticate': `Basic realm="${this.name.replace(/"/g, "'")}", charset="UTF-8"`,
        });
      }
      const body = await readBody(req, this.bodyLimit);
      const contentType = firstHeader(req.headers['content-type']) ?? '';
      const parsed = await parseBody(body, contentType);
      warnings = parsed.notes;
      for (const note of parsed.notes) this.log('info', `${method} ${path}: ${note}`);
      const data: Record<string, unknown> = { ...found.params };
      if (q !== -1) for (const [k, v] of new URLSearchParams(rawUrl.slice(q + 1))) data[k] = v;
      Object.assign(data, parsed.fields);

      if (handler.kind === 'attributeRequest') {
        const r = await this.attributeRequest(handler.spec, data);
        device = r.device;
        status = 200;
        this.send(res, 200, JSON.stringify(r.answer), 'application/json');
        return;
      }

      if (Object.keys(data).length === 0 && body.length === 0)
        throw new HttpError(415, 'Nothing to convert: send a JSON body, form fields or query parameters');
      let converted: ConvertedData;
      try {
        converted = await handler.converter.convert(data, {
          method,
          path,
          headers: req.headers,
          body,
          contentType,
        });
      } catch (err) {
        if (err instanceof ConversionError) throw new HttpError(400, err.message);
        if (err instanceof ConverterFailure) throw err;
        throw new ConverterFailure(handler.converter.name, err);
      }
      device = converted.deviceName;
      warnings = [...warnings, ...converted.warnings];
      const response = handler.spec.response;
      let waiting: { answer: Promise<unknown>; cancel(): void } | undefined;
      if (response.kind === 'remote') {
        converted.attributes.responseExpected = true;
        // registered before the data goes out: only an answer that comes after it counts
        waiting = this.waitForRemote(converted.deviceName, response.attribute, response.timeoutMs);
      }
      const count = datapointsOf(converted);
      try {
        await this.gateway.send(converted.deviceName, converted.deviceType, {
          attributes: converted.attributes,
          telemetry: converted.telemetry,
        });
      } catch (err) {
        waiting?.cancel(); // an answer to nothing must not go to the device's next request
        throw err;
      }
      datapoints = count;
      this.counters.datapoints += datapoints;
      if (response.kind === 'remote') {
        const value = await waiting!.answer;
        if (value === undefined)
          throw new HttpError(
            408,
            `No shared attribute '${response.attribute}' arrived for device '${converted.deviceName}' within ${response.timeoutMs / 1000} s`,
          );
        status = 200;
        if (typeof value === 'string') this.send(res, 200, value, 'text/plain; charset=utf-8');
        else this.send(res, 200, JSON.stringify(value), 'application/json');
        return;
      }
      status = 200;
      if (response.kind === 'fixed') this.send(res, 200, response.success, 'text/plain; charset=utf-8');
      else this.send(res, 200, '', undefined);
    } catch (err) {
      if (err instanceof HttpError || err instanceof RequestError) {
        status = err.status;
        error = err.message;
        const headers = err instanceof HttpError ? err.headers : {};
        if (status === 413) headers.connection = 'close';
        this.sendError(res, status, err.message, headers, req);
      } else if (err instanceof ConverterFailure) {
        status = 500;
        error = err.message;
        this.log('error', `${method} ${path}: ${err.message}`);
        this.sendError(res, 500, err.message, {}, req);
      } else if (err instanceof PlatformSendError) {
        status = err.status;
        error = err.message;
        this.log('warn', `${method} ${path}: ${err.message}`);
        this.sendError(res, status, err.message, {}, req);
      } else {
        status = 500;
        error = (err as Error).message;
        this.log('error', `${method} ${path}: ${(err as Error).stack ?? String(err)}`);
        this.sendError(res, 500, `Internal error: ${(err as Error).message}`, {}, req);
      }
    } finally {
      this.counters.requests++;
      if (status < 200 || status >= 300) this.counters.failedRequests++;
      const entry = this.requests.add({
        time,
        method,
        path,
        status,
        device,
        datapoints,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        error,
        warnings,
      });
      if (this.events.listenerCount('request')) this.events.emit('request', entry);
    }
  }

  private send(res: ServerResponse, status: number, body: string, type: string | undefined): void {
    if (res.headersSent || res.destroyed) return;
    const headers: Record<string, string | number> = { 'content-length': Buffer.byteLength(body) };
    if (type) headers['content-type'] = type;
    res.writeHead(status, headers);
    res.end(body);
  }

  private sendError(
    res: ServerResponse,
    status: number,
    message: string,
    headers: Record<string, string>,
    req: IncomingMessage,
  ): void {
    if (res.headersSent || res.destroyed) return;
    // a mapping entry with a fixed answer gives unsuccessfulResponse for the statuses it would give
    let found: ReturnType<RestConnector['match']> = null;
    try {
      found = this.match((req.url ?? '/').split('?')[0]!);
    } catch {
      // a path that does not decode has no handler
    }
    const handler = found?.route.methods.get((req.method ?? 'GET').toUpperCase());
    const fixed =
      handler?.kind === 'mapping' && handler.spec.response.kind === 'fixed' ? handler.spec.response : null;
    const body =
      fixed && status !== 401 && status !== 405 ? fixed.failure : JSON.stringify({ status, error: message });
    res.writeHead(status, {
      ...headers,
      'content-type':
        fixed && status !== 401 && status !== 405 ? 'text/plain; charset=utf-8' : 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
    if (headers.connection === 'close') res.once('finish', () => req.socket.destroySoon());
  }

  /** Waits for the next shared attribute `attribute` of the device (not one that came before). */
  private waitForRemote(
    device: string,
    attribute: string,
    timeoutMs: number,
  ): { answer: Promise<unknown>; cancel(): void } {
    let cancel = () => {};
    const answer = new Promise<unknown>((resolve) => {
      const list = this.waiters.get(device) ?? [];
      const remove = () => {
        clearTimeout(timer);
        const l = this.waiters.get(device);
        const i = l?.indexOf(waiter) ?? -1;
        if (l && i >= 0) l.splice(i, 1);
        if (l && l.length === 0) this.waiters.delete(device);
        resolve(undefined);
      };
      const waiter: RemoteWaiter = {
        attribute,
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
      };
      const timer = setTimeout(remove, timeoutMs);
      cancel = remove;
      list.push(waiter);
      this.waiters.set(device, list);
    });
    return { answer, cancel };
  }

  private async attributeRequest(
    spec: AttributeRequestSpec,
    data: Record<string, unknown>,
  ): Promise<{ device: string; answer: Record<string, unknown> }> {
    const device = renderString(spec.deviceNameExpression, data);
    if (!device)
      throw new HttpError(
        400,
        `deviceNameExpression '${spec.deviceNameExpression}' found nothing in the request`,
      );
    const keys: string[] = [];
    for (const part of parseTemplate(spec.attributeNameExpression)) {
      if (part.token === undefined) continue;
      const v = lookup(data, part.token);
      if (v === undefined || v === null || v === '') continue;
      if (Array.isArray(v)) keys.push(...v.map(textOf));
      else
        keys.push(
          ...textOf(v)
            .split(',')
            .map((k) => k.trim())
            .filter(Boolean),
        );
    }
    if (!keys.length)
      throw new HttpError(
        400,
        `attributeNameExpression '${spec.attributeNameExpression}' found no attribute names in the request`,
      );
    const answer = await this.gateway.requestAttributes(
      device,
      keys,
      spec.scope === 'client',
      spec.timeoutMs,
    );
    if (!answer)
      throw new HttpError(
        408,
        `The platform did not answer the attribute request within ${spec.timeoutMs / 1000} s`,
      );
    return { device, answer };
  }

  // -------------------------------------------------------------------------------------------------------
  // From the platform: shared attribute updates and RPC
  // -------------------------------------------------------------------------------------------------------

  private handleAttributeUpdate(update: AttributeUpdate): void {
    const waiting = this.waiters.get(update.device);
    if (waiting) {
      for (const [key, value] of Object.entries(update.data)) {
        const i = waiting.findIndex((w) => w.attribute === key);
        if (i >= 0) waiting.splice(i, 1)[0]!.resolve(value);
      }
      if (waiting.length === 0) this.waiters.delete(update.device);
    }
    for (const [key, value] of Object.entries(update.data)) {
      for (const spec of this.config.attributeUpdates) {
        if (!spec.deviceNameFilter.test(update.device) || !spec.attributeFilter.test(key)) continue;
        const vars = { deviceName: update.device, attributeKey: key, attributeValue: value };
        void this.call({
          kind: 'attributeUpdate',
          device: update.device,
          trigger: key,
          rpcId: null,
          spec,
          vars,
        });
      }
    }
  }

  private async handleRpc(rpc: GatewayRpcRequest): Promise<void> {
    try {
      const builtin = /^(get|set)$/i.test(rpc.method) ? parseBuiltinParams(rpc.params) : null;
      if (builtin) {
        await this.builtinRpc(rpc, builtin);
        return;
      }
      const spec = this.config.serverSideRpc.find(
        (s) => s.deviceNameFilter.test(rpc.device) && s.methodFilter.test(rpc.method),
      );
      if (!spec) {
        await this.reply(rpc, {
          error: `No serverSideRpc entry matches method '${rpc.method}' of device '${rpc.device}'`,
          code: 404,
        });
        return;
      }
      const vars = { deviceName: rpc.device, methodName: rpc.method, requestId: rpc.id, params: rpc.params };
      const call = {
        kind: 'rpc',
        device: rpc.device,
        trigger: rpc.method,
        rpcId: rpc.id,
        spec,
        vars,
      } as const;
      if (spec.responseTimeoutMs === undefined) {
        // no reply expected: the platform hears at once that the request went out; nobody waits for the target
        await this.reply(rpc, { success: true });
        void this.call({ ...call, noReply: true });
        return;
      }
      await this.reply(rpc, await this.call({ ...call, deadlineMs: spec.responseTimeoutMs }));
    } catch (err) {
      this.log('error', `RPC ${rpc.method} for ${rpc.device}: ${(err as Error).message}`);
    }
  }

  private async builtinRpc(rpc: GatewayRpcRequest, p: Record<string, string>): Promise<void> {
    const set = rpc.method.toLowerCase() === 'set';
    let headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (p.httpHeaders) {
      try {
        headers = JSON.parse(p.httpHeaders) as Record<string, string>;
      } catch {
        await this.reply(rpc, { error: 'httpHeaders must be a JSON object', code: 400 });
        return;
      }
    }
    const timeout = Number(p.timeout ?? 1);
    const responseTimeout = Number(p.responseTimeout ?? Math.max(timeout * 2, 1));
    const spec: OutgoingSpec = {
      method: (p.HTTPMethod ?? p.httpMethod ?? (set ? 'POST' : 'GET')).toUpperCase(),
      sslVerify: false,
      headers,
      security: { type: 'anonymous' },
      timeoutMs: Math.max(1, Math.round((Number.isFinite(timeout) ? timeout : 1) * 1000)),
      tries: Math.max(1, Math.trunc(Number(p.tries ?? 1)) || 1),
      allowRedirects: true,
      requestUrlExpression: p.requestUrlExpression!,
      valueExpression: p.valueExpression ?? p.value ?? '',
    };
    const vars = { deviceName: rpc.device, methodName: rpc.method, requestId: rpc.id, params: rpc.params };
    const responseMs = Math.round((Number.isFinite(responseTimeout) ? responseTimeout : 2) * 1000);
    await this.reply(
      rpc,
      await this.call({
        kind: 'rpc',
        device: rpc.device,
        trigger: rpc.method,
        rpcId: rpc.id,
        spec,
        vars,
        deadlineMs: responseMs,
      }),
    );
  }

  private async reply(rpc: GatewayRpcRequest, data: unknown): Promise<void> {
    try {
      await this.gateway.replyRpc(rpc.device, rpc.id, data);
    } catch (err) {
      this.log('warn', `RPC reply ${rpc.id} to ${rpc.device} failed: ${(err as Error).message}`);
    }
  }

  /**
   * One outgoing call with its tries, logged; for RPC the answer in compat's shape: {"result": body},
   * {"error": reason, "code": status}, or {"error": "Timeout", "code": 408}.
   */
  private async call(c: {
    kind: 'attributeUpdate' | 'rpc';
    device: string;
    /** attribute key or RPC method */
    trigger: string;
    rpcId: number | null;
    spec: OutgoingSpec | AttributeUpdateSpec | RpcSpec;
    vars: Record<string, unknown>;
    /** RPC responseTimeout: all tries end by then */
    deadlineMs?: number;
    /** an RPC answered {"success": true} already */
    noReply?: boolean;
  }): Promise<unknown> {
    const { kind, device, trigger, rpcId, spec, vars, deadlineMs } = c;
    const resolve = (token: string) => lookup(vars, token);
    const url = renderString(spec.requestUrlExpression, vars, { resolve }) ?? spec.requestUrlExpression;
    const rendered =
      spec.valueExpression === '' ? undefined : render(spec.valueExpression, vars, { resolve });
    const body = rendered === undefined ? undefined : textOf(rendered);
    const entry = this.outgoing.add({
      time: Date.now(),
      kind,
      device,
      trigger,
      rpcId,
      method: spec.method,
      url,
      tries: [],
      state: 'pending',
      status: null,
      error: null,
      reply: c.noReply ? { success: true } : null,
    });
    this.counters.outgoing++;
    const controller = new AbortController();
    this.inFlight.add(controller);
    const deadline =
      deadlineMs !== undefined
        ? AbortSignal.any([controller.signal, AbortSignal.timeout(deadlineMs)])
        : controller.signal;
    const request: OutgoingRequest = {
      method: spec.method,
      url,
      headers: spec.headers,
      ...(body !== undefined && spec.method !== 'HEAD' ? { body } : {}),
      security: spec.security,
      sslVerify: spec.sslVerify,
      timeoutMs: spec.timeoutMs,
      allowRedirects: spec.allowRedirects,
    };
    try {
      const outcome = await callWithTries(request, spec.tries, (t) => entry.tries.push(t), deadline);
      let reply: unknown;
      if (outcome.response && outcome.response.status >= 200 && outcome.response.status < 300) {
        entry.state = 'ok';
        entry.status = outcome.response.status;
        reply = { result: bodyValue(outcome.response.body) };
      } else {
        entry.state = 'failed';
        this.counters.failedOutgoing++;
        if (outcome.timedOut && !controller.signal.aborted) {
          entry.error = `Timeout: no answer within ${(deadlineMs ?? 0) / 1000} s`;
          reply = { error: 'Timeout', code: 408 };
        } else if (outcome.response) {
          entry.status = outcome.response.status;
          entry.error = `${outcome.response.status} ${outcome.response.statusText}`;
          reply = {
            error: outcome.response.statusText || `HTTP ${outcome.response.status}`,
            code: outcome.response.status,
          };
        } else {
          entry.error = outcome.error ?? 'no answer';
          reply = { error: entry.error, code: 502 };
        }
        this.log(
          'warn',
          `${kind} ${trigger} for ${device}: ${spec.method} ${url} failed after ${entry.tries.length} tr${entry.tries.length === 1 ? 'y' : 'ies'}: ${entry.error}`,
        );
      }
      if (kind === 'rpc' && !c.noReply) entry.reply = reply;
      this.events.emit('outgoing', entry);
      return reply;
    } finally {
      this.inFlight.delete(controller);
    }
  }
}

/**
 * rest.json (either format) validated and turned into the connector's working configuration: defaults of
 * the spec's tables applied, legacy keys mapped, timeouts in ms, filters compiled.
 */
import { homedir } from 'node:os';
import {
  formatRestConfigIssues,
  isLegacyRestConfig,
  pythonRegex,
  validateRestConfig,
  type RestConfigIssue,
} from '../../../../shared/schemas/rest-connector.ts';

export interface EndpointSecurityConfig {
  type: 'basic' | 'anonymous';
  username: string;
  password: string;
}

export interface OutgoingSecurityConfig {
  type: 'basic' | 'anonymous' | 'cert';
  username?: string;
  password?: string;
  cert?: string;
  key?: string;
  ca?: string;
}

export interface ValueSpec {
  type: string;
  key: string;
  value: string;
  tsField?: string;
  dayfirst: boolean;
  yearfirst: boolean;
}

export interface DeviceInfoSpec {
  nameExpression: string;
  nameSource: 'request' | 'constant';
  profileExpression: string;
  profileSource: 'request' | 'constant';
}

export interface JsonConverterSpec {
  type: 'json';
  deviceInfo: DeviceInfoSpec;
  attributes: ValueSpec[];
  timeseries: ValueSpec[];
}

export interface CustomConverterSpec {
  type: 'custom';
  deviceInfo: DeviceInfoSpec;
  extension: string;
  /** the whole converter section as written (deviceInfo filled in), given to the class */
  section: Record<string, unknown>;
}

export type ConverterSpec = JsonConverterSpec | CustomConverterSpec;

export type ResponseSpec =
  | { kind: 'status' }
  | { kind: 'fixed'; success: string; failure: string }
  | { kind: 'remote'; timeoutMs: number; attribute: string };

export interface MappingSpec {
  index: number;
  endpoint: string;
  methods: string[];
  security: EndpointSecurityConfig;
  converter: ConverterSpec;
  response: ResponseSpec;
}

export interface AttributeRequestSpec {
  index: number;
  endpoint: string;
  scope: 'shared' | 'client';
  methods: string[];
  security: EndpointSecurityConfig;
  timeoutMs: number;
  deviceNameExpression: string;
  attributeNameExpression: string;
}

export interface OutgoingSpec {
  method: string;
  sslVerify: boolean;
  headers: Record<string, string>;
  security: OutgoingSecurityConfig;
  timeoutMs: number;
  tries: number;
  allowRedirects: boolean;
  requestUrlExpression: string;
  valueExpression: string;
}

export interface AttributeUpdateSpec extends OutgoingSpec {
  index: number;
  deviceNameFilter: RegExp;
  attributeFilter: RegExp;
}

export interface RpcSpec extends OutgoingSpec {
  index: number;
  deviceNameFilter: RegExp;
  methodFilter: RegExp;
  /** undefined: no reply (the gateway does not wait) */
  responseTimeoutMs?: number;
}

export interface RestConnectorConfig {
  format: 'new' | 'legacy';
  server: { host: string; port: number; ssl: boolean; cert?: string; key?: string };
  mapping: MappingSpec[];
  attributeRequests: AttributeRequestSpec[];
  attributeUpdates: AttributeUpdateSpec[];
  serverSideRpc: RpcSpec[];
  warnings: RestConfigIssue[];
}

export class RestConfigError extends Error {
  readonly errors: RestConfigIssue[];
  constructor(errors: RestConfigIssue[]) {
    super(`rest.json is not valid:\n${formatRestConfigIssues(errors)}`);
    this.errors = errors;
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Obj => (isObj(v) ? v : {});
const str = (v: unknown, dflt: string): string => (typeof v === 'string' ? v : dflt);
const bool = (v: unknown, dflt: boolean): boolean => (typeof v === 'boolean' ? v : dflt);
const num = (v: unknown, dflt: number): number => (typeof v === 'number' ? v : dflt);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const seconds = (v: unknown, dflt: number) => Math.round(num(v, dflt) * 1000);
const methods = (v: unknown, dflt: string[]) =>
  (Array.isArray(v) ? v.filter((m): m is string => typeof m === 'string') : dflt).map((m) => m.toUpperCase());

/** A path with ~ for the home folder. */
export function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? homedir() + path.slice(1) : path;
}

function endpointSecurity(v: unknown): EndpointSecurityConfig {
  if (!isObj(v)) return { type: 'anonymous', username: '', password: '' };
  const type = str(v.type, 'basic').toLowerCase() === 'anonymous' ? 'anonymous' : 'basic';
  return { type, username: str(v.username, 'username'), password: str(v.password, 'password') };
}

function outgoingSecurity(v: unknown, dflt: 'basic' | 'anonymous'): OutgoingSecurityConfig {
  if (!isObj(v))
    return dflt === 'basic' ? { type: 'basic', username: 'user', password: 'passwd' } : { type: 'anonymous' };
  const type = str(v.type, 'basic').toLowerCase() as OutgoingSecurityConfig['type'];
  if (type === 'anonymous') return { type };
  if (type === 'cert')
    return {
      type,
      cert: expandHome(str(v.cert, '')),
      key: expandHome(str(v.key, '')),
      ...(typeof v.ca === 'string' ? { ca: expandHome(v.ca) } : {}),
    };
  return { type: 'basic', username: str(v.username, 'user'), password: str(v.password, 'passwd') };
}

function deviceInfo(conv: Obj, custom: boolean): DeviceInfoSpec {
  const info = obj(conv.deviceInfo);
  const dfltSource = custom ? 'constant' : 'request';
  const source = (v: unknown) => (str(v, dfltSource) === 'constant' ? 'constant' : 'request');
  if (isObj(conv.deviceInfo)) {
    return {
      nameExpression: str(info.deviceNameExpression, 'Device ${name}'),
      nameSource: source(info.deviceNameExpressionSource),
      profileExpression: str(info.deviceProfileExpression, 'default'),
      profileSource: source(info.deviceProfileExpressionSource),
    };
  }
  // legacy: expressions on the converter; a constant is an expression without tokens
  const name = str(conv.deviceNameExpression, 'Device ${name}');
  const profile = str(conv.deviceTypeExpression ?? conv.deviceProfileExpression, 'default');
  return {
    nameExpression: name,
    nameSource: 'request',
    profileExpression: profile,
    profileSource: 'request',
  };
}

function valueSpecs(v: unknown): ValueSpec[] {
  return list(v)
    .filter(isObj)
    .map((e) => ({
      type: str(e.type, 'string').toLowerCase(),
      key: str(e.key, ''),
      value: str(e.value, ''),
      ...(typeof e.tsField === 'string' && e.tsField !== '' ? { tsField: e.tsField } : {}),
      dayfirst: bool(e.dayfirst, false),
      yearfirst: bool(e.yearfirst, false),
    }));
}

function converter(v: unknown): ConverterSpec {
  const conv = obj(v);
  if (str(conv.type, 'json') === 'custom') {
    const info = deviceInfo(conv, true);
    const section: Obj = { ...conv };
    if (section.extensionConfig === undefined && section['extension-config'] !== undefined)
      section.extensionConfig = section['extension-config'];
    section.deviceInfo = {
      deviceNameExpression: info.nameExpression,
      deviceNameExpressionSource: info.nameSource,
      deviceProfileExpression: info.profileExpression,
      deviceProfileExpressionSource: info.profileSource,
    };
    return {
      type: 'custom',
      deviceInfo: info,
      extension: str(conv.extension, 'CustomRestUplinkConverter'),
      section,
    };
  }
  return {
    type: 'json',
    deviceInfo: deviceInfo(conv, false),
    attributes: valueSpecs(conv.attributes),
    timeseries: valueSpecs(conv.timeseries),
  };
}

function response(entry: Obj): ResponseSpec {
  const r = obj(entry.response);
  const remote =
    (r.response === true && r.responseExpected !== false) ||
    (r.responseExpected === true && r.response !== false);
  if (remote)
    return {
      kind: 'remote',
      timeoutMs: seconds(r.timeout, 120),
      attribute: str(r.responseAttribute, 'result'),
    };
  const success = r.successResponse ?? entry.successResponse;
  const failure = r.unsuccessfulResponse ?? entry.unsuccessfulResponse;
  if (success !== undefined || failure !== undefined)
    return { kind: 'fixed', success: str(success, 'OK'), failure: str(failure, 'Error') };
  return { kind: 'status' };
}

function outgoing(
  e: Obj,
  d: Omit<Partial<OutgoingSpec>, 'security'> & { security: 'basic' | 'anonymous' },
): OutgoingSpec {
  const headers: Record<string, string> = {};
  const given = isObj(e.httpHeaders) ? e.httpHeaders : { 'CONTENT-TYPE': 'application/json' };
  for (const [k, v] of Object.entries(given)) if (typeof v === 'string') headers[k] = v;
  return {
    method: str(e.HTTPMethod ?? e.httpMethod, d.method ?? 'POST').toUpperCase(),
    sslVerify: bool(e.SSLVerify, false),
    headers,
    security: outgoingSecurity(e.security, d.security),
    timeoutMs: seconds(e.timeout, 0.5),
    tries: Math.max(1, Math.trunc(num(e.tries, 3))),
    allowRedirects: bool(e.allowRedirects, true),
    requestUrlExpression: str(e.requestUrlExpression, d.requestUrlExpression ?? ''),
    valueExpression: str(e.valueExpression, d.valueExpression ?? ''),
  };
}

/** Validates and normalizes a parsed rest.json; throws RestConfigError naming each bad JSON path. */
export function loadRestConfig(raw: unknown): RestConnectorConfig {
  const validation = validateRestConfig(raw);
  if (!validation.valid) throw new RestConfigError(validation.errors);
  const config = raw as Obj;
  const legacy = isLegacyRestConfig(config);
  const server = legacy ? config : obj(config.server);
  const security = obj(server.security);
  const requests = legacy ? config : obj(config.requestsMapping);
  const port = server.port === undefined ? 5000 : Number(server.port);
  return {
    format: legacy ? 'legacy' : 'new',
    server: {
      host: str(server.host, '127.0.0.1'),
      port,
      ssl: bool(server.SSL, false),
      ...(typeof security.cert === 'string' ? { cert: expandHome(security.cert) } : {}),
      ...(typeof security.key === 'string' ? { key: expandHome(security.key) } : {}),
    },
    mapping: list(config.mapping)
      .filter(isObj)
      .map((e, index) => ({
        index,
        endpoint: str(e.endpoint, '/test_device'),
        methods: methods(e.HTTPMethods, ['GET']),
        security: endpointSecurity(e.security),
        converter: converter(e.converter),
        response: response(e),
      })),
    attributeRequests: list(requests.attributeRequests)
      .filter(isObj)
      .map((e, index) => ({
        index,
        endpoint: str(e.endpoint, '/sharedAttributes'),
        scope: str(e.type, 'shared') === 'client' ? 'client' : 'shared',
        methods: methods(e.HTTPMethods, ['POST']),
        security: endpointSecurity(e.security),
        timeoutMs: seconds(e.timeout, 10),
        deviceNameExpression: str(e.deviceNameExpression, '${deviceName}'),
        attributeNameExpression: str(e.attributeNameExpression, '${attribute}'),
      })),
    attributeUpdates: list(requests.attributeUpdates)
      .filter(isObj)
      .map((e, index) => ({
        index,
        ...outgoing(e, {
          method: 'POST',
          security: 'basic',
          requestUrlExpression: 'sensor/${deviceName}/${attributeKey}',
          valueExpression: '{"${attributeKey}":"${attributeValue}"}',
        }),
        deviceNameFilter: pythonRegex(str(e.deviceNameFilter, '.*REST$')),
        attributeFilter: pythonRegex(str(e.attributeFilter, 'data')),
      })),
    serverSideRpc: list(requests.serverSideRpc)
      .filter(isObj)
      .map((e, index) => ({
        index,
        ...outgoing(e, {
          method: 'GET',
          security: 'anonymous',
          requestUrlExpression: 'http://127.0.0.1:5001/${deviceName}',
          valueExpression: '${params}',
        }),
        deviceNameFilter: pythonRegex(str(e.deviceNameFilter, '.*')),
        methodFilter: pythonRegex(str(e.methodFilter, 'echo')),
        ...(typeof e.responseTimeout === 'number' && e.responseTimeout > 0
          ? { responseTimeoutMs: Math.round(e.responseTimeout * 1000) }
          : {}),
      })),
    warnings: validation.warnings,
  };
}

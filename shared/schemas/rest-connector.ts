import { jsonTooDeep, tooDeepMessage } from '../limits.ts';
/**
 * The gateway REST connector: its configuration file rest.json (the ThingsBoard IoT Gateway's own, in the
 * 3.7+ format and the legacy one), a validator whose errors name each JSON path, the gateway's default
 * configuration as a template, and the REST shapes of /api/sandboard/restConnectors. Pure TypeBox: the
 * server and the UI (the editor's completion uses RestConfigSchema) share it.
 */
import { Type, type Static } from 'typebox';
import {
  describeBranch,
  isRecord,
  joinPath,
  oneOf,
  ownErrors,
  valid,
  type JsonPathIssue,
  type SchemaNode as Schema,
} from './json-path-issues.ts';

// ---------------------------------------------------------------------------------------------------------
// rest.json
// ---------------------------------------------------------------------------------------------------------

/** Value types of attributes and timeseries entries (the gateway's names and their aliases). */
export const REST_VALUE_TYPES = [
  'string',
  'str',
  'double',
  'float',
  'integer',
  'int',
  'long',
  'boolean',
  'bool',
  'json',
  'raw',
] as const;

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

const Port = Type.Union(
  [
    Type.Integer({ minimum: 0, maximum: 65535 }),
    Type.String({ pattern: '^[0-9]{1,5}$', description: 'a port number as a string ("5000")' }),
  ],
  { description: 'port (an integer or a string of digits; 0 picks a free port)', default: 5000 },
);

const Seconds = (description: string, dflt: number) =>
  Type.Number({
    exclusiveMinimum: 0,
    description: `${description}, in seconds (default ${dflt})`,
    default: dflt,
  });

const Headers = Type.Record(Type.String(), Type.String(), {
  description: 'extra request headers (default {"CONTENT-TYPE": "application/json"})',
  default: { 'CONTENT-TYPE': 'application/json' },
});

const ServerSecurity = Type.Object(
  {
    cert: Type.Optional(
      Type.String({ description: 'path to the PEM certificate file (~ is the home folder)' }),
    ),
    key: Type.Optional(Type.String({ description: 'path to the PEM private key file' })),
  },
  { description: 'certificate and key of the HTTPS server (used when SSL is true)' },
);

export const RestServer = Type.Object(
  {
    host: Type.Optional(
      Type.String({ description: 'address to listen on (default 127.0.0.1)', default: '127.0.0.1' }),
    ),
    port: Type.Optional(Port),
    SSL: Type.Optional(
      Type.Boolean({
        description:
          'HTTPS with security.cert and security.key (default false; the spec lists both true and false, its full sample false)',
        default: false,
      }),
    ),
    security: Type.Optional(ServerSecurity),
  },
  { description: 'the HTTP(S) server of the connector' },
);

export const EndpointSecurity = Type.Object(
  {
    type: Type.Optional(
      Type.Union([Type.Literal('basic'), Type.Literal('anonymous')], {
        description: 'basic (Authorization: Basic base64(username:password)) or anonymous (default basic)',
        default: 'basic',
      }),
    ),
    username: Type.Optional(Type.String({ description: 'used with basic (default "username")' })),
    password: Type.Optional(Type.String({ description: 'used with basic (default "password")' })),
  },
  { description: 'who may call the endpoint (no security object: anonymous)' },
);

export const OutgoingSecurity = Type.Object(
  {
    type: Type.Optional(
      Type.Union([Type.Literal('basic'), Type.Literal('anonymous'), Type.Literal('cert')], {
        description: 'basic (username, password), anonymous, or cert (client certificate cert + key)',
      }),
    ),
    username: Type.Optional(Type.String({ description: 'used with basic (default "user")' })),
    password: Type.Optional(Type.String({ description: 'used with basic (default "passwd")' })),
    cert: Type.Optional(Type.String({ description: 'cert: path to the client certificate (PEM)' })),
    key: Type.Optional(Type.String({ description: 'cert: path to the client key (PEM)' })),
    ca: Type.Optional(Type.String({ description: 'path to a CA bundle that signs the server (PEM)' })),
  },
  { description: 'credentials of the outgoing request' },
);

export const ValueEntry = Type.Object(
  {
    type: Type.Optional(
      Type.Union(
        REST_VALUE_TYPES.map((t) => Type.Literal(t)),
        {
          description:
            'type the value is converted to: string, double (float), integer (int, long), boolean (bool), or json / raw (as it came); default string',
          default: 'string',
        },
      ),
    ),
    key: Type.String({
      description: 'key sent to the platform; may hold ${...} tokens (a templated key)',
      minLength: 1,
    }),
    value: Type.String({
      description:
        'value sent: ${field}, a JSONPath ${a.b} / ${arr[1]} / ${$.data.value}, several tokens (${hum}:${temp}) or a constant',
    }),
    tsField: Type.Optional(
      Type.String({
        description:
          'timeseries: where the datetime is (${field} or a JSONPath); absent: the ts or timestamp property, else now',
      }),
    ),
    dayfirst: Type.Optional(
      Type.Boolean({ description: 'timeseries: DD.MM.YY dates (default false: MM.DD.YY)', default: false }),
    ),
    yearfirst: Type.Optional(
      Type.Boolean({ description: 'timeseries: YY.MM.DD dates (default false)', default: false }),
    ),
  },
  { description: 'one attribute or timeseries value' },
);

const Expression = (description: string, dflt?: string) =>
  Type.String({ description, ...(dflt !== undefined ? { default: dflt } : {}) });
const Source = (what: string) =>
  Type.Union([Type.Literal('request'), Type.Literal('constant')], {
    description: `request: the ${what} expression reads the request (default for json); constant: it is the ${what} itself (default for custom)`,
  });

export const DeviceInfo = Type.Object(
  {
    deviceNameExpression: Type.Optional(
      Expression('device name, e.g. ${sensorName} (default Device ${name})'),
    ),
    deviceNameExpressionSource: Type.Optional(Source('device name')),
    deviceProfileExpression: Type.Optional(
      Expression('device profile (type), e.g. ${sensorType} (default default)'),
    ),
    deviceProfileExpressionSource: Type.Optional(Source('profile')),
  },
  { description: 'where the device name and profile come from' },
);

export const Converter = Type.Object(
  {
    type: Type.Optional(
      Type.Union([Type.Literal('json'), Type.Literal('custom')], {
        description: 'json (the default converter) or custom (a class named by extension)',
        default: 'json',
      }),
    ),
    deviceInfo: Type.Optional(DeviceInfo),
    deviceNameExpression: Type.Optional(Expression('legacy format: device name expression')),
    deviceTypeExpression: Type.Optional(Expression('legacy format: device type (profile) expression')),
    attributes: Type.Optional(
      Type.Array(ValueEntry, { description: 'client attributes sent for the device' }),
    ),
    timeseries: Type.Optional(Type.Array(ValueEntry, { description: 'telemetry sent for the device' })),
    extension: Type.Optional(
      Type.String({
        description:
          'custom: class name of the converter, exported by a .mjs/.js module in <data dir>/converters (default CustomRestUplinkConverter)',
        minLength: 1,
      }),
    ),
    extensionConfig: Type.Optional(
      Type.Unknown({ description: 'custom: free-form, given to the converter' }),
    ),
    'extension-config': Type.Optional(Type.Unknown({ description: 'legacy format: extensionConfig' })),
  },
  { description: 'how a request becomes device data' },
);

export const ResponseSection = Type.Object(
  {
    response: Type.Optional(Type.Boolean({ description: 'true: the platform produces the response' })),
    responseExpected: Type.Optional(
      Type.Boolean({
        description:
          'true: wait for the shared attribute responseAttribute of the device and return it (default true when response is true)',
      }),
    ),
    timeout: Type.Optional(Seconds('how long to wait for the remote response (then 408)', 120)),
    responseAttribute: Type.Optional(
      Type.String({ description: 'shared attribute holding the response (default result)', minLength: 1 }),
    ),
    successResponse: Type.Optional(
      Type.String({ description: 'body returned with status 200 (default OK)' }),
    ),
    unsuccessfulResponse: Type.Optional(
      Type.String({ description: 'body returned with any other status (default Error)' }),
    ),
  },
  { description: 'what the endpoint answers (no section: the status code only)' },
);

const Methods = (dflt: string[]) =>
  Type.Array(Type.String({ minLength: 1 }), {
    description: `allowed HTTP methods (default ${JSON.stringify(dflt)})`,
    minItems: 1,
    default: dflt,
  });

export const MappingEntry = Type.Object(
  {
    endpoint: Type.Optional(
      Type.String({
        description: 'URL path (default /test_device); {name} segments are path variables',
        default: '/test_device',
      }),
    ),
    HTTPMethods: Type.Optional(Methods(['GET'])),
    security: Type.Optional(EndpointSecurity),
    converter: Converter,
    response: Type.Optional(ResponseSection),
    successResponse: Type.Optional(Type.String({ description: 'as response.successResponse' })),
    unsuccessfulResponse: Type.Optional(Type.String({ description: 'as response.unsuccessfulResponse' })),
  },
  { description: 'one endpoint that turns requests into device data' },
);

export const AttributeRequestEntry = Type.Object(
  {
    endpoint: Type.Optional(Type.String({ description: 'URL path (default /sharedAttributes)' })),
    type: Type.Optional(
      Type.Union([Type.Literal('shared'), Type.Literal('client')], {
        description: 'scope of the attributes (default shared)',
      }),
    ),
    HTTPMethods: Type.Optional(Methods(['POST'])),
    security: Type.Optional(EndpointSecurity),
    timeout: Type.Optional(Seconds('how long to wait for the platform (then 408)', 10)),
    deviceNameExpression: Type.Optional(Expression('where the device name is (default ${deviceName})')),
    attributeNameExpression: Type.Optional(
      Expression('where the attribute names are; each ${...} is one key (default ${attribute})'),
    ),
  },
  { description: 'an endpoint that answers attributes of a device from the platform' },
);

const Filter = (description: string, dflt: string) =>
  Type.String({
    description: `${description} (a regular expression matching the whole name; default ${dflt})`,
  });

const HttpMethod = Type.String({ description: 'HTTP method of the outgoing request', minLength: 1 });

export const AttributeUpdateEntry = Type.Object(
  {
    HTTPMethod: Type.Optional(HttpMethod),
    httpMethod: Type.Optional(HttpMethod),
    SSLVerify: Type.Optional(Type.Boolean({ description: 'verify the target certificate (default false)' })),
    httpHeaders: Type.Optional(Headers),
    security: Type.Optional(OutgoingSecurity),
    timeout: Type.Optional(Seconds('timeout of one try', 0.5)),
    tries: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, description: 'attempts (default 3)' })),
    allowRedirects: Type.Optional(Type.Boolean({ description: 'follow redirects (default true)' })),
    deviceNameFilter: Type.Optional(Filter('devices', '.*REST$')),
    attributeFilter: Type.Optional(Filter('attribute names', 'data')),
    requestUrlExpression: Type.Optional(
      Expression(
        'target URL; ${deviceName}, ${attributeKey}, ${attributeValue} (default sensor/${deviceName}/${attributeKey})',
      ),
    ),
    valueExpression: Type.Optional(
      Expression(
        'request body; ${deviceName}, ${attributeKey}, ${attributeValue} (default {"${attributeKey}":"${attributeValue}"})',
      ),
    ),
  },
  { description: 'an outgoing request on a shared attribute update' },
);

export const ServerSideRpcEntry = Type.Object(
  {
    deviceNameFilter: Type.Optional(Filter('devices', '.*')),
    methodFilter: Type.Optional(Filter('RPC methods', 'echo')),
    requestUrlExpression: Type.Optional(
      Expression('target URL; ${deviceName}, ${methodName}, ${requestId}, ${params}, ${params.x}'),
    ),
    responseTimeout: Type.Optional(
      Type.Number({
        minimum: 0,
        description:
          'seconds to wait for the answer, forwarded to the platform; absent or 0: no reply (the gateway does not wait)',
      }),
    ),
    HTTPMethod: Type.Optional(HttpMethod),
    httpMethod: Type.Optional(HttpMethod),
    valueExpression: Type.Optional(
      Expression('request body (default ${params}); ${params.hum} for one value'),
    ),
    timeout: Type.Optional(Seconds('timeout of one try', 0.5)),
    tries: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, description: 'attempts (default 3)' })),
    httpHeaders: Type.Optional(Headers),
    security: Type.Optional(OutgoingSecurity),
    SSLVerify: Type.Optional(Type.Boolean({ description: 'verify the target certificate (default false)' })),
    allowRedirects: Type.Optional(Type.Boolean({ description: 'follow redirects (default true)' })),
  },
  { description: 'an outgoing request on a server-side RPC' },
);

const RequestsArrays = {
  attributeRequests: Type.Optional(Type.Array(AttributeRequestEntry)),
  attributeUpdates: Type.Optional(Type.Array(AttributeUpdateEntry)),
  serverSideRpc: Type.Optional(Type.Array(ServerSideRpcEntry)),
};

/**
 * rest.json, both formats: the 3.7+ one (server, mapping, requestsMapping) and the legacy one (server keys,
 * attributeRequests, attributeUpdates and serverSideRpc at the top level). Unknown keys are allowed (the
 * gateway adds its own, such as name or logLevel) and reported as warnings.
 */
export const RestConfigSchema = Type.Object(
  {
    server: Type.Optional(RestServer),
    mapping: Type.Optional(
      Type.Array(MappingEntry, { description: 'endpoints that turn requests into data' }),
    ),
    requestsMapping: Type.Optional(
      Type.Object(RequestsArrays, { description: 'attribute requests, attribute updates and RPC' }),
    ),
    host: Type.Optional(Type.String({ description: 'legacy format: server.host' })),
    port: Type.Optional(Port),
    SSL: Type.Optional(Type.Boolean({ description: 'legacy format: server.SSL' })),
    security: Type.Optional(ServerSecurity),
    ...RequestsArrays,
    name: Type.Optional(Type.String({ description: 'connector name' })),
    logLevel: Type.Optional(Type.String({ description: 'accepted for compatibility' })),
  },
  {
    $id: 'https://sandboard.local/schemas/rest-connector.json',
    title: 'ThingsBoard IoT Gateway REST connector (rest.json)',
    description: 'The REST connector configuration: 3.7+ format or the legacy one',
  },
);
export type RestConfigFile = Static<typeof RestConfigSchema>;

// ---------------------------------------------------------------------------------------------------------
// Validation: every error and warning names its JSON path
// ---------------------------------------------------------------------------------------------------------

/** JSON path of the value, e.g. mapping[0].converter.timeseries[1].type ('' is the whole file) */
export type RestConfigIssue = JsonPathIssue;

export interface RestConfigValidation {
  valid: boolean;
  /** legacy: server keys and request sections at the top level (before gateway 3.7) */
  format: 'new' | 'legacy';
  errors: RestConfigIssue[];
  warnings: RestConfigIssue[];
}

function explain(
  schema: Schema,
  value: unknown,
  path: string,
  warnings: RestConfigIssue[],
): RestConfigIssue[] {
  if (schema.anyOf) {
    if (valid(schema, value)) return [];
    return [{ path, message: `must be ${oneOf(schema.anyOf.map(describeBranch))}` }];
  }
  if (schema.type === 'object' && isRecord(value) && schema.properties) {
    const issues: RestConfigIssue[] = [];
    for (const key of schema.required ?? [])
      if (value[key] === undefined) issues.push({ path: joinPath(path, key), message: 'is required' });
    for (const [key, v] of Object.entries(value)) {
      const sub = schema.properties[key];
      if (sub) issues.push(...explain(sub, v, joinPath(path, key), warnings));
      else warnings.push({ path: joinPath(path, key), message: 'is not a known key (ignored)' });
    }
    return issues;
  }
  if (valid(schema, value)) return [];
  if (schema.type === 'array' && Array.isArray(value) && schema.items) {
    const issues = ownErrors(schema, value, path);
    value.forEach((item, i) => issues.push(...explain(schema.items!, item, joinPath(path, i), warnings)));
    return issues;
  }
  const own = ownErrors(schema, value, path);
  return own.length ? own : [{ path, message: 'is not valid' }];
}

/** A Python regular expression (the gateway's) as a JavaScript one: named groups (?P<n>..) become (?<n>..). */
export function pythonRegex(source: string): RegExp {
  const js = source.replace(/\(\?P</g, '(?<').replace(/\(\?P=(\w+)\)/g, '\\k<$1>');
  return new RegExp(`^(?:${js})$`);
}

function checkExpression(value: unknown, path: string, errors: RestConfigIssue[]): void {
  if (typeof value !== 'string') return;
  let i = 0;
  while ((i = value.indexOf('${', i)) !== -1) {
    const end = value.indexOf('}', i + 2);
    if (end === -1) {
      errors.push({ path, message: `has '\${' without a closing '}' at character ${i}` });
      return;
    }
    if (end === i + 2) errors.push({ path, message: `has an empty token '\${}' at character ${i}` });
    i = end + 1;
  }
}

function checkRegex(value: unknown, path: string, errors: RestConfigIssue[]): void {
  if (typeof value !== 'string') return;
  try {
    pythonRegex(value);
  } catch (err) {
    errors.push({ path, message: `is not a valid regular expression: ${(err as Error).message}` });
  }
}

function checkMethods(value: unknown, path: string, errors: RestConfigIssue[]): void {
  const list = Array.isArray(value) ? value : [value];
  list.forEach((m, i) => {
    if (typeof m !== 'string') return;
    if (!(HTTP_METHODS as readonly string[]).includes(m.toUpperCase()))
      errors.push({
        path: Array.isArray(value) ? joinPath(path, i) : path,
        message: `must be one of ${HTTP_METHODS.join(', ')} (got '${m}')`,
      });
  });
}

/** Whether a parsed rest.json is the pre-3.7 format. */
export function isLegacyRestConfig(config: Record<string, unknown>): boolean {
  if (isRecord(config.server)) return false;
  return (
    'host' in config ||
    'port' in config ||
    'SSL' in config ||
    'attributeRequests' in config ||
    'attributeUpdates' in config ||
    'serverSideRpc' in config
  );
}

function semanticIssues(
  config: Record<string, unknown>,
  errors: RestConfigIssue[],
  warnings: RestConfigIssue[],
) {
  const legacy = isLegacyRestConfig(config);
  if (!legacy) {
    for (const key of ['host', 'port', 'SSL', 'security'])
      if (key in config)
        warnings.push({ path: key, message: `is a legacy top-level key: server.${key} is used instead` });
    for (const key of ['attributeRequests', 'attributeUpdates', 'serverSideRpc'])
      if (key in config)
        warnings.push({
          path: key,
          message: `is a legacy top-level key: requestsMapping.${key} is used instead`,
        });
  }
  const server = (legacy ? config : isRecord(config.server) ? config.server : {}) as Record<string, unknown>;
  const serverPath = legacy ? '' : 'server';
  if (server.SSL === true) {
    const sec = isRecord(server.security) ? server.security : {};
    for (const k of ['cert', 'key'])
      if (typeof sec[k] !== 'string' || sec[k] === '')
        errors.push({
          path: joinPath(joinPath(serverPath, 'security'), k),
          message: 'is required when SSL is true (a PEM file path)',
        });
  }
  if (typeof server.port === 'string' && Number(server.port) > 65535)
    errors.push({ path: joinPath(serverPath, 'port'), message: 'must be a port number from 0 to 65535' });

  const routes = new Map<string, string>();
  const route = (endpoint: unknown, methods: unknown, path: string, dfltMethods: string[]) => {
    const ep = typeof endpoint === 'string' ? endpoint : undefined;
    if (ep !== undefined && !ep.startsWith('/'))
      errors.push({ path: joinPath(path, 'endpoint'), message: "must start with '/'" });
    const list = Array.isArray(methods) ? methods : dfltMethods;
    for (const m of list) {
      if (typeof m !== 'string') continue;
      const key = `${m.toUpperCase()} ${ep ?? ''}`;
      const first = routes.get(key);
      if (first)
        errors.push({
          path: joinPath(path, 'endpoint'),
          message: `${m.toUpperCase()} ${ep} is already served by ${first}`,
        });
      else routes.set(key, path);
    }
    if (methods !== undefined) checkMethods(methods, joinPath(path, 'HTTPMethods'), errors);
  };

  const mapping = Array.isArray(config.mapping) ? config.mapping : [];
  if (!Array.isArray(config.mapping) || mapping.length === 0)
    warnings.push({ path: 'mapping', message: 'has no endpoints: the connector will only serve requests' });
  mapping.forEach((entry, i) => {
    if (!isRecord(entry)) return;
    const p = joinPath('mapping', i);
    route(entry.endpoint ?? '/test_device', entry.HTTPMethods, p, ['GET']);
    const conv = isRecord(entry.converter) ? entry.converter : {};
    const cp = joinPath(p, 'converter');
    const info = isRecord(conv.deviceInfo) ? conv.deviceInfo : {};
    for (const k of ['deviceNameExpression', 'deviceProfileExpression'])
      checkExpression(info[k], joinPath(joinPath(cp, 'deviceInfo'), k), errors);
    for (const k of ['deviceNameExpression', 'deviceTypeExpression'])
      checkExpression(conv[k], joinPath(cp, k), errors);
    for (const section of ['attributes', 'timeseries'] as const) {
      const list = Array.isArray(conv[section]) ? conv[section] : [];
      list.forEach((v, j) => {
        if (!isRecord(v)) return;
        const vp = joinPath(joinPath(cp, section), j);
        for (const k of ['key', 'value', 'tsField']) checkExpression(v[k], joinPath(vp, k), errors);
        if (section === 'attributes' && v.tsField !== undefined)
          warnings.push({ path: joinPath(vp, 'tsField'), message: 'applies to timeseries only (ignored)' });
      });
    }
    if (conv.type === 'custom' && (conv.attributes !== undefined || conv.timeseries !== undefined))
      warnings.push({ path: cp, message: 'custom converters ignore attributes and timeseries' });
    const sec = isRecord(entry.security) ? entry.security : undefined;
    if (
      sec &&
      (sec.type ?? 'basic') === 'basic' &&
      (sec.username === undefined || sec.password === undefined)
    )
      warnings.push({
        path: joinPath(p, 'security'),
        message: 'basic without username or password: the defaults "username" / "password" apply',
      });
    const resp = isRecord(entry.response) ? entry.response : {};
    const fixed =
      resp.successResponse !== undefined ||
      resp.unsuccessfulResponse !== undefined ||
      entry.successResponse !== undefined ||
      entry.unsuccessfulResponse !== undefined;
    if (fixed && (resp.response === true || resp.responseExpected === true))
      warnings.push({
        path: joinPath(p, 'response'),
        message: 'has both a fixed body and a remote response: the remote response is used',
      });
  });

  const requests = legacy
    ? config
    : ((isRecord(config.requestsMapping) ? config.requestsMapping : {}) as Record<string, unknown>);
  const base = legacy ? '' : 'requestsMapping';
  const list = (k: string) => (Array.isArray(requests[k]) ? (requests[k] as unknown[]) : []);
  list('attributeRequests').forEach((entry, i) => {
    if (!isRecord(entry)) return;
    const p = joinPath(joinPath(base, 'attributeRequests'), i);
    route(entry.endpoint ?? '/sharedAttributes', entry.HTTPMethods, p, ['POST']);
    checkExpression(entry.deviceNameExpression, joinPath(p, 'deviceNameExpression'), errors);
    checkExpression(entry.attributeNameExpression, joinPath(p, 'attributeNameExpression'), errors);
  });
  for (const section of ['attributeUpdates', 'serverSideRpc'] as const) {
    list(section).forEach((entry, i) => {
      if (!isRecord(entry)) return;
      const p = joinPath(joinPath(base, section), i);
      const filters =
        section === 'attributeUpdates'
          ? ['deviceNameFilter', 'attributeFilter']
          : ['deviceNameFilter', 'methodFilter'];
      for (const f of filters) checkRegex(entry[f], joinPath(p, f), errors);
      for (const k of ['requestUrlExpression', 'valueExpression'])
        checkExpression(entry[k], joinPath(p, k), errors);
      for (const k of ['HTTPMethod', 'httpMethod'])
        if (entry[k] !== undefined) checkMethods(entry[k], joinPath(p, k), errors);
      const sec = isRecord(entry.security) ? entry.security : undefined;
      if (sec?.type === 'cert')
        for (const k of ['cert', 'key'])
          if (typeof sec[k] !== 'string')
            errors.push({
              path: joinPath(joinPath(p, 'security'), k),
              message: 'is required with type cert',
            });
    });
  }
  return legacy;
}

/**
 * Checks a parsed rest.json (either format). Errors make the connector refuse the file; warnings
 * (unknown keys, defaults that apply) do not.
 */
export function validateRestConfig(value: unknown): RestConfigValidation {
  const warnings: RestConfigIssue[] = [];
  if (!isRecord(value))
    return {
      valid: false,
      format: 'new',
      errors: [{ path: '', message: 'must be a JSON object (the content of rest.json)' }],
      warnings,
    };
  // checked before the schema walk, which recurses
  const deep = jsonTooDeep(value, '$');
  if (deep)
    return {
      valid: false,
      format: 'new',
      errors: [{ path: deep.replace(/^\$\.?/, ''), message: tooDeepMessage(deep) }],
      warnings,
    };
  const errors = explain(RestConfigSchema as unknown as Schema, value, '', warnings);
  const legacy = semanticIssues(value, errors, warnings);
  const seen = new Set<string>();
  const unique = errors.filter((e) => {
    const k = `${e.path}\u0000${e.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return { valid: unique.length === 0, format: legacy ? 'legacy' : 'new', errors: unique, warnings };
}

/** One line per issue: "mapping[0].converter.type: must be ..." */
export function formatRestConfigIssues(issues: RestConfigIssue[]): string {
  return issues.map((e) => `${e.path || '(file)'}: ${e.message}`).join('\n');
}

// ---------------------------------------------------------------------------------------------------------
// The gateway's default rest.json (thingsboard-gateway 3.8), the editor's template
// ---------------------------------------------------------------------------------------------------------

const attributesOfSensor = [
  { type: 'string', key: 'model', value: '${sensorModel}' },
  { type: 'string', key: 'certificateNumber', value: '${certificateNumber}' },
];
const tempAndHum = [
  { type: 'double', key: 'temperature', value: '${temp}' },
  { type: 'double', key: 'humidity', value: '${hum}' },
];
const noRemoteResponse = { responseExpected: false, timeout: 120 };
const json = { 'Content-Type': 'application/json' };

export const DEFAULT_REST_CONFIG = {
  server: {
    host: '127.0.0.1',
    port: '5000',
    SSL: false,
    security: { cert: '~/ssl/cert.pem', key: '~/ssl/key.pem' },
  },
  mapping: [
    {
      endpoint: '/my_devices',
      HTTPMethods: ['POST'],
      response: noRemoteResponse,
      security: { type: 'anonymous' },
      converter: {
        type: 'json',
        deviceInfo: {
          deviceNameExpressionSource: 'request',
          deviceNameExpression: '${sensorName}',
          deviceProfileExpressionSource: 'request',
          deviceProfileExpression: '${sensorType}',
        },
        attributes: attributesOfSensor,
        timeseries: tempAndHum,
      },
    },
    {
      endpoint: '/anon1',
      HTTPMethods: ['GET', 'POST'],
      response: noRemoteResponse,
      security: { type: 'anonymous' },
      converter: {
        type: 'json',
        deviceInfo: {
          deviceNameExpressionSource: 'constant',
          deviceNameExpression: 'Device 2',
          deviceProfileExpressionSource: 'constant',
          deviceProfileExpression: 'default',
        },
        attributes: [{ type: 'string', key: 'model', value: 'Model2' }],
        timeseries: tempAndHum,
      },
    },
    {
      endpoint: '/anon2',
      HTTPMethods: ['POST'],
      response: noRemoteResponse,
      security: { type: 'anonymous' },
      converter: {
        type: 'custom',
        deviceInfo: {
          deviceNameExpressionSource: 'constant',
          deviceNameExpression: 'SuperAnonDevice',
          deviceProfileExpressionSource: 'constant',
          deviceProfileExpression: 'default',
        },
        extension: 'CustomRestUplinkConverter',
        extensionConfig: {
          key: 'Totaliser',
          datatype: 'float',
          fromByte: 0,
          toByte: 4,
          byteorder: 'big',
          signed: true,
          multiplier: 1,
        },
      },
    },
  ],
  requestsMapping: {
    attributeRequests: [
      {
        endpoint: '/sharedAttributes',
        type: 'shared',
        HTTPMethods: ['POST'],
        security: { type: 'anonymous' },
        timeout: 10,
        deviceNameExpression: '${deviceName}',
        attributeNameExpression: '${attribute}${attribute1}',
      },
    ],
    attributeUpdates: [
      {
        HTTPMethod: 'POST',
        SSLVerify: false,
        httpHeaders: json,
        security: { type: 'anonymous' },
        timeout: 0.5,
        tries: 3,
        allowRedirects: true,
        deviceNameFilter: 'SN.*',
        attributeFilter: '.*',
        requestUrlExpression: 'http://127.0.0.1:5001/',
        valueExpression: '{"deviceName":"${deviceName}","${attributeKey}":"${attributeValue}"}',
      },
      {
        HTTPMethod: 'POST',
        SSLVerify: false,
        httpHeaders: json,
        security: {
          type: 'cert',
          cert: '/thingsboard_gateway/config/cert.pem',
          key: '/thingsboard_gateway/config/key.pem',
        },
        timeout: 0.5,
        tries: 3,
        allowRedirects: true,
        deviceNameFilter: 'CERT.*',
        attributeFilter: '.*',
        requestUrlExpression: 'http://127.0.0.1:5002/',
        valueExpression: '{"deviceName":"${deviceName}","${attributeKey}":"${attributeValue}"}',
      },
    ],
    serverSideRpc: [
      {
        deviceNameFilter: '.*',
        methodFilter: 'echo',
        requestUrlExpression: 'http://127.0.0.1:5001/${deviceName}',
        responseTimeout: 1,
        HTTPMethod: 'GET',
        valueExpression: '${params}',
        timeout: 10,
        tries: 3,
        httpHeaders: json,
        security: { type: 'anonymous' },
      },
      {
        deviceNameFilter: 'SN.*',
        methodFilter: 'post_attributes',
        requestUrlExpression: 'http://127.0.0.1:5000/my_devices',
        responseTimeout: 1,
        HTTPMethod: 'POST',
        valueExpression:
          '{"sensorName":"${deviceName}", "sensorModel":"${params.sensorModel}", "certificateNumber":"${params.certificateNumber}", "temp":"${params.temp}", "hum":"${params.hum}"}',
        timeout: 10,
        tries: 3,
        httpHeaders: json,
        security: { type: 'anonymous' },
      },
      {
        deviceNameFilter: '.*',
        methodFilter: 'no-reply',
        requestUrlExpression: 'sensor/${deviceName}/request/${methodName}/${requestId}',
        HTTPMethod: 'POST',
        valueExpression: '${params}',
        httpHeaders: json,
        security: { type: 'anonymous' },
      },
    ],
  },
};

// ---------------------------------------------------------------------------------------------------------
// REST shapes: /api/sandboard/restConnectors
// ---------------------------------------------------------------------------------------------------------

export const RestConfigIssueSchema = Type.Object({
  path: Type.String({ description: "JSON path, e.g. mapping[0].converter.type ('' is the whole file)" }),
  message: Type.String(),
});

export const RestConfigValidationSchema = Type.Object({
  valid: Type.Boolean(),
  format: Type.Union([Type.Literal('new'), Type.Literal('legacy')]),
  errors: Type.Array(RestConfigIssueSchema),
  warnings: Type.Array(RestConfigIssueSchema),
});

export const ConnectorTarget = Type.Object(
  {
    url: Type.Optional(
      Type.String({
        description:
          'mqtt://host:port (or mqtts://) of another ThingsBoard-compatible platform; absent: this one',
      }),
    ),
    token: Type.Optional(Type.String({ description: "the gateway device's access token there (with url)" })),
    ca: Type.Optional(
      Type.String({
        maxLength: 65536,
        description: 'PEM certificate (or its authority) trusted for an mqtts:// platform',
      }),
    ),
    insecure: Type.Optional(
      Type.Boolean({ description: "mqtts://: accept the platform's certificate without checking it" }),
    ),
  },
  {
    additionalProperties: false,
    description: 'the platform the gateway connects to (default: the embedded one)',
  },
);
export type ConnectorTarget = Static<typeof ConnectorTarget>;

export const ConnectorState = Type.Union(
  [Type.Literal('stopped'), Type.Literal('starting'), Type.Literal('running'), Type.Literal('failed')],
  { description: 'failed: the last start failed (lastError says why)' },
);
export type ConnectorState = Static<typeof ConnectorState>;

export const SaveRestConnectorRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255, description: 'connector name (unique)' }),
    gatewayName: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'name of the gateway device on the embedded platform (default: the connector name)',
      }),
    ),
    config: Type.Unknown({ description: 'the content of rest.json (either format)' }),
    autostart: Type.Optional(Type.Boolean({ description: 'start with the platform (default false)' })),
    target: Type.Optional(ConnectorTarget),
  },
  { additionalProperties: false },
);
export type SaveRestConnectorRequest = Static<typeof SaveRestConnectorRequest>;

export const ConnectorCounters = Type.Object({
  requests: Type.Integer({ description: 'requests answered' }),
  failedRequests: Type.Integer({ description: 'requests answered with a status other than 2xx' }),
  datapoints: Type.Integer({ description: 'attributes and telemetry values acknowledged by the platform' }),
  outgoing: Type.Integer({ description: 'outgoing calls (attribute updates, RPC)' }),
  failedOutgoing: Type.Integer(),
});
export type ConnectorCounters = Static<typeof ConnectorCounters>;

export const RestConnectorSummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  gatewayName: Type.String(),
  gatewayDeviceId: Type.Union([Type.String(), Type.Null()], {
    description: 'the gateway device on the embedded platform (null for another platform)',
  }),
  target: ConnectorTarget,
  autostart: Type.Boolean(),
  state: ConnectorState,
  lastError: Type.Union([Type.String(), Type.Null()]),
  /** the connector's base URL while it runs (http(s)://host:port) */
  baseUrl: Type.Union([Type.String(), Type.Null()]),
  mqttConnected: Type.Boolean({ description: 'the gateway MQTT session is up' }),
  counters: ConnectorCounters,
  createdTime: Type.Integer(),
  updatedTime: Type.Integer(),
});
export type RestConnectorSummary = Static<typeof RestConnectorSummary>;

export const RestConnectorDetails = Type.Intersect([
  RestConnectorSummary,
  Type.Object({
    config: Type.Unknown({ description: 'rest.json as saved' }),
    validation: RestConfigValidationSchema,
  }),
]);
export type RestConnectorDetails = Static<typeof RestConnectorDetails>;

export const RestEndpointInfo = Type.Object({
  kind: Type.Union([Type.Literal('mapping'), Type.Literal('attributeRequest')]),
  /** index in mapping or attributeRequests */
  index: Type.Integer(),
  method: Type.String(),
  path: Type.String({ description: 'the configured endpoint ({name} segments are path variables)' }),
  url: Type.Union([Type.String(), Type.Null()], { description: 'full URL while the connector runs' }),
  security: Type.Union([Type.Literal('basic'), Type.Literal('anonymous')]),
  converter: Type.Union([Type.String(), Type.Null()], { description: 'json, or the custom class name' }),
  response: Type.String({ description: 'status, fixed, remote or attributes' }),
  curl: Type.String({
    description: 'a ready-made curl command with an example body built from the converter',
  }),
  exampleBody: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
});
export type RestEndpointInfo = Static<typeof RestEndpointInfo>;

export const ConverterModule = Type.Object({
  file: Type.String({ description: 'a .mjs or .js module of the converters folder' }),
  sizeBytes: Type.Integer(),
  modifiedTime: Type.Integer({ description: 'ms since the epoch' }),
});
export const ConvertersInfo = Type.Object({
  dir: Type.String({ description: 'the converters folder of the data directory' }),
  modules: Type.Array(ConverterModule),
  sample: Type.String({
    description: "the gateway's sample converter class, copied into the folder the first time it is used",
  }),
});
export type ConvertersInfo = Static<typeof ConvertersInfo>;

export const RequestLogEntry = Type.Object({
  id: Type.Integer(),
  time: Type.Integer({ description: 'ms since the epoch, when the request arrived' }),
  method: Type.String(),
  path: Type.String(),
  status: Type.Integer(),
  device: Type.Union([Type.String(), Type.Null()]),
  datapoints: Type.Integer({ description: 'attributes + telemetry values sent to the platform' }),
  durationMs: Type.Number(),
  error: Type.Union([Type.String(), Type.Null()]),
  warnings: Type.Array(Type.String(), {
    description: 'values not sent (None, bad type), ignored file parts',
  }),
});
export type RequestLogEntry = Static<typeof RequestLogEntry>;

export const OutgoingTry = Type.Object({
  time: Type.Integer(),
  durationMs: Type.Number(),
  status: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status, null on a network error' }),
  error: Type.Union([Type.String(), Type.Null()]),
});
export type OutgoingTry = Static<typeof OutgoingTry>;

export const OutgoingLogEntry = Type.Object({
  id: Type.Integer(),
  time: Type.Integer(),
  kind: Type.Union([Type.Literal('attributeUpdate'), Type.Literal('rpc')]),
  device: Type.String(),
  /** attribute key or RPC method */
  trigger: Type.String(),
  rpcId: Type.Union([Type.Integer(), Type.Null()]),
  method: Type.String(),
  url: Type.String(),
  tries: Type.Array(OutgoingTry),
  state: Type.Union([Type.Literal('pending'), Type.Literal('ok'), Type.Literal('failed')]),
  status: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  /** what the platform got back for an RPC (null: no reply) */
  reply: Type.Unknown(),
});
export type OutgoingLogEntry = Static<typeof OutgoingLogEntry>;

export const TestRequest = Type.Object(
  {
    method: Type.String({ minLength: 1, description: 'HTTP method' }),
    path: Type.String({
      minLength: 1,
      description: 'path on the connector, e.g. /my_devices (query allowed)',
    }),
    query: Type.Optional(Type.Record(Type.String(), Type.String())),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    auth: Type.Optional(
      Type.Object({ username: Type.String(), password: Type.String() }, { description: 'basic credentials' }),
    ),
    json: Type.Optional(Type.Unknown({ description: 'sent as application/json' })),
    text: Type.Optional(Type.String({ description: 'sent as is (set content-type in headers)' })),
    form: Type.Optional(
      Type.Object(
        {
          fields: Type.Optional(Type.Record(Type.String(), Type.String())),
          files: Type.Optional(
            Type.Array(
              Type.Object({
                name: Type.String(),
                filename: Type.String(),
                content: Type.String(),
                contentType: Type.Optional(Type.String()),
              }),
            ),
          ),
        },
        { description: 'sent as multipart/form-data' },
      ),
    ),
  },
  { additionalProperties: false },
);
export type TestRequest = Static<typeof TestRequest>;

export const TestResponse = Type.Object({
  status: Type.Integer(),
  headers: Type.Record(Type.String(), Type.String()),
  body: Type.String(),
  durationMs: Type.Number(),
  /** the curl command equivalent to the request sent */
  curl: Type.String(),
});
export type TestResponse = Static<typeof TestResponse>;

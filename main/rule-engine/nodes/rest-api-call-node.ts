import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import type { TbMsg } from '../../platform/tb-msg.ts';
import { schemaValidator } from '../config-schema.ts';
import { processPattern } from '../msg-patterns.ts';
import { errorText, type NodeDefinition, type NodeOutput } from '../rule-node.ts';

// node:http imported as an ES module builds its namespace, and that loads Node's fetch (undici): tens of ms of every start
const { STATUS_CODES } = process.getBuiltinModule('node:http');

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.restApiCall]!;
/** ThingsBoard waits without a limit when readTimeoutMs is 0; Sandboard never waits longer than this. */
export const REST_CALL_MAX_WAIT_MS = 60_000;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Spring's HttpStatus name of a status code: 404 -> NOT_FOUND. */
function statusName(code: number): string {
  const special: Record<number, string> = {
    418: 'I_AM_A_TEAPOT',
    414: 'URI_TOO_LONG',
    413: 'PAYLOAD_TOO_LARGE',
  };
  return special[code] ?? (STATUS_CODES[code] ?? String(code)).toUpperCase().replace(/[^A-Z0-9]+/g, '_');
}

function headersToMetadata(headers: Headers, metadata: Record<string, string>): void {
  const grouped = new Map<string, string[]>();
  headers.forEach((value, name) => grouped.set(name, [...(grouped.get(name) ?? []), value]));
  for (const [name, values] of grouped)
    metadata[name] = values.length === 1 ? values[0]! : JSON.stringify(values);
}

/** Reads at most `limit` bytes of a response body; more is an error, as ThingsBoard's in-memory buffer limit. */
async function readLimited(res: Response, limit: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new Error(`Exceeded limit on max bytes to buffer : ${limit}`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function responseData(text: string): unknown {
  if (text === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function requestBody(msg: TbMsg, config: Record<string, unknown>): string {
  const template = typeof config.requestBodyTemplate === 'string' ? config.requestBodyTemplate : '';
  const plain = config.parseToPlainText === true;
  if (template.trim()) {
    const processed = processPattern(template, msg, !plain);
    if (plain) return processed;
    try {
      return JSON.stringify(JSON.parse(processed));
    } catch {
      throw new Error(`Request body template produced invalid JSON: ${processed}`);
    }
  }
  if (plain && typeof msg.data === 'string') return msg.data;
  return JSON.stringify(msg.data ?? null);
}

function buildUrl(msg: TbMsg, config: Record<string, unknown>): URL {
  const text = processPattern(String(config.restEndpointUrlPattern ?? ''), msg);
  if (!text) throw new Error('Url string cannot be empty!');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`Invalid request URL: '${text}'. The URL must be valid and properly encoded.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`Transport scheme(protocol) ${url.protocol} is not supported: use http or https`);
  for (const p of (config.queryParams as { key: string; value: string }[] | null | undefined) ?? [])
    url.searchParams.append(processPattern(p.key, msg), processPattern(p.value, msg));
  return url;
}

/**
 * Calls a REST API with the message (or a body template) and answers with the response: its body becomes
 * the message data and status, statusCode, statusReason and headers go to the metadata; a non-2xx answer,
 * a timeout or a refused connection goes to Failure with error / error_body in the metadata.
 */
export const restApiCallNode: NodeDefinition = {
  type: NODE_TYPES.restApiCall,
  label: 'REST API Call',
  componentType: 'EXTERNAL',
  description: 'Invoke REST API calls to external REST server',
  relations: ['Success', 'Failure'],
  version: 4,
  upgrade: (from, config) => {
    const c = { ...config };
    if (from < 1 && !('parseToPlainText' in c) && 'trimDoubleQuotes' in c) {
      c.parseToPlainText = c.trimDoubleQuotes === true;
      delete c.trimDoubleQuotes;
    }
    if (from < 2)
      for (const k of ['useRedisQueueForMsgPersistence', 'trimQueue', 'maxQueueSize']) delete c[k];
    if (from < 3 && !('maxInMemoryBufferSizeInKb' in c)) c.maxInMemoryBufferSizeInKb = 256;
    if (from < 4 && !('requestBodyTemplate' in c)) c.requestBodyTemplate = null;
    return c;
  },
  defaultConfiguration: {
    restEndpointUrlPattern: 'http://localhost/api',
    requestMethod: 'POST',
    headers: { 'Content-Type': 'application/json' },
    queryParams: [],
    readTimeoutMs: 0,
    maxParallelRequestsCount: 0,
    parseToPlainText: false,
    enableProxy: false,
    useSystemProxyProperties: false,
    proxyHost: null,
    proxyPort: 0,
    proxyUser: null,
    proxyPassword: null,
    credentials: { type: 'anonymous' },
    ignoreRequestBody: false,
    requestBodyTemplate: null,
    maxInMemoryBufferSizeInKb: 256,
  },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: (config) => {
    if (config.enableProxy === true) throw new Error('HTTP proxies are not supported by Sandboard');
    const method = String(config.requestMethod ?? 'POST');
    const timeout =
      Number(config.readTimeoutMs ?? 0) > 0 ? Number(config.readTimeoutMs) : REST_CALL_MAX_WAIT_MS;
    const limit =
      (Number(config.maxInMemoryBufferSizeInKb ?? 0) > 0 ? Number(config.maxInMemoryBufferSizeInKb) : 256) *
      1024;
    const parallel = Number(config.maxParallelRequestsCount ?? 0);
    const credentials = (config.credentials ?? { type: 'anonymous' }) as {
      type: string;
      username?: string;
      password?: string;
    };
    if (credentials.type !== 'anonymous' && credentials.type !== 'basic')
      throw new Error(`Credentials of type '${credentials.type}' are not supported by Sandboard`);
    let running = 0;
    const waiting: (() => void)[] = [];
    const slot = async () => {
      if (parallel <= 0) return;
      if (running >= parallel) await new Promise<void>((resolve) => waiting.push(resolve));
      running++;
    };
    const release = () => {
      if (parallel <= 0) return;
      running--;
      waiting.shift()?.();
    };
    const call = async (msg: TbMsg): Promise<NodeOutput[]> => {
      const metadata = { ...msg.metadata };
      try {
        const url = buildUrl(msg, config);
        const headers = new Headers();
        for (const [k, v] of Object.entries((config.headers as Record<string, string> | null) ?? {}))
          headers.append(processPattern(k, msg), processPattern(v, msg));
        if (credentials.type === 'basic')
          headers.set(
            'Authorization',
            `Basic ${Buffer.from(`${credentials.username ?? ''}:${credentials.password ?? ''}`).toString('base64')}`,
          );
        const body =
          BODY_METHODS.has(method) && config.ignoreRequestBody !== true
            ? requestBody(msg, config)
            : undefined;
        const res = await fetch(url, {
          method,
          headers,
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(timeout),
        });
        const text = await readLimited(res, limit);
        metadata.status = statusName(res.status);
        metadata.statusCode = String(res.status);
        metadata.statusReason = STATUS_CODES[res.status] ?? '';
        if (res.ok) {
          headersToMetadata(res.headers, metadata);
          return [{ relation: 'Success', msg: { ...msg, metadata, data: responseData(text) } }];
        }
        metadata.error_body = text;
        headersToMetadata(res.headers, metadata);
        metadata.error = `${res.status} ${metadata.statusReason} from ${method} ${url.origin}${url.pathname}`;
        return [{ relation: 'Failure', msg: { ...msg, metadata } }];
      } catch (err) {
        const e = err as Error;
        const reason =
          e.name === 'TimeoutError'
            ? `No response within ${timeout} ms`
            : (e.cause as Error | undefined)?.message
              ? `${e.message}: ${(e.cause as Error).message}`
              : errorText(err);
        metadata.error = reason;
        return [{ relation: 'Failure', msg: { ...msg, metadata } }];
      }
    };
    return {
      async process(msg) {
        await slot();
        try {
          return await call(msg);
        } finally {
          release();
        }
      },
    };
  },
};

/**
 * Outgoing HTTP(S) calls of the connector (attribute updates, server-side RPC): node:http / node:https
 * with a per-try timeout, basic or client-certificate credentials, SSLVerify, redirects followed or not,
 * and tries with exponential backoff on network errors, timeouts and 5xx answers.
 */
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { OutgoingSecurityConfig } from './config.ts';

// node:http imported as an ES module builds its namespace, and that loads Node's fetch (undici): tens of ms of every start
const { request: httpRequest } = process.getBuiltinModule('node:http');

export interface OutgoingRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  security: OutgoingSecurityConfig;
  sslVerify: boolean;
  timeoutMs: number;
  allowRedirects: boolean;
}

export interface OutgoingResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface TryReport {
  time: number;
  durationMs: number;
  status: number | null;
  error: string | null;
}

/** A failure that another try will not fix (bad URL, unreadable certificate). */
class PermanentError extends Error {}

/** The gateway prefixes http:// to a URL without a scheme. */
export function absoluteUrl(url: string): string {
  return /^https?:\/\//i.test(url) ? url : `http://${url.replace(/^\/+/, '')}`;
}

const fileCache = new Map<string, Buffer>();
function readPem(path: string, what: string): Buffer {
  const cached = fileCache.get(path);
  if (cached) return cached;
  try {
    const data = readFileSync(path);
    fileCache.set(path, data);
    return data;
  } catch (err) {
    throw new PermanentError(
      `cannot read the ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

const MAX_BODY = 4 * 1024 * 1024;
const MAX_REDIRECTS = 10;

function once(req: OutgoingRequest, url: URL, signal: AbortSignal): Promise<OutgoingResponse> {
  const headers: Record<string, string> = { ...req.headers };
  const sec = req.security;
  if (sec.type === 'basic')
    headers.authorization = `Basic ${Buffer.from(`${sec.username ?? ''}:${sec.password ?? ''}`).toString('base64')}`;
  const body =
    req.body === undefined || req.method === 'HEAD'
      ? undefined
      : Buffer.isBuffer(req.body)
        ? req.body
        : Buffer.from(req.body);
  if (body) headers['content-length'] = String(body.length);
  const https = url.protocol === 'https:';
  const tls = https
    ? {
        rejectUnauthorized: req.sslVerify,
        ...(sec.type === 'cert' && sec.cert ? { cert: readPem(sec.cert, 'client certificate') } : {}),
        ...(sec.type === 'cert' && sec.key ? { key: readPem(sec.key, 'client key') } : {}),
        ...(sec.ca ? { ca: readPem(sec.ca, 'CA bundle') } : {}),
      }
    : {};
  if (!https && sec.type === 'cert') {
    // a client certificate only means something over TLS; read it anyway so a missing file is reported
    if (sec.cert) readPem(sec.cert, 'client certificate');
    if (sec.key) readPem(sec.key, 'client key');
  }
  return new Promise((resolve, reject) => {
    const r = (https ? httpsRequest : httpRequest)(
      url,
      { method: req.method, headers, signal, agent: false, ...tls },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size <= MAX_BODY) chunks.push(c);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            headers: res.headers,
            body: Buffer.concat(chunks),
          }),
        );
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(body);
  });
}

/** One try: the request, following redirects when allowed; rejects on network errors and timeouts. */
export async function httpCall(req: OutgoingRequest, outer?: AbortSignal): Promise<OutgoingResponse> {
  let url: URL;
  try {
    url = new URL(absoluteUrl(req.url));
  } catch {
    throw new PermanentError(`'${req.url}' is not a valid URL`);
  }
  const timeout = AbortSignal.timeout(Math.max(1, req.timeoutMs));
  const signal = outer ? AbortSignal.any([timeout, outer]) : timeout;
  let current = req;
  try {
    for (let hop = 0; ; hop++) {
      const res = await once(current, url, signal);
      const location = res.headers.location;
      if (!req.allowRedirects || res.status < 300 || res.status >= 400 || !location || hop >= MAX_REDIRECTS)
        return res;
      url = new URL(location, url);
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && current.method !== 'HEAD')) {
        const { body: _dropped, ...rest } = current;
        current = { ...rest, method: current.method === 'HEAD' ? 'HEAD' : 'GET' };
      }
    }
  } catch (err) {
    if (timeout.aborted) throw new Error(`timed out after ${req.timeoutMs} ms`, { cause: err });
    if (outer?.aborted) throw new Error('cancelled', { cause: err });
    throw err;
  }
}

export interface CallOutcome {
  response?: OutgoingResponse;
  /** the last network error (when no response came) */
  error?: string;
  tries: TryReport[];
  /** the deadline passed before an answer */
  timedOut: boolean;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/**
 * Sends with up to `tries` attempts: network errors, timeouts and 5xx are tried again after 100 ms,
 * 200 ms, 400 ms... (at most 2 s); `deadline` (RPC responseTimeout) stops it all.
 */
export async function callWithTries(
  req: OutgoingRequest,
  tries: number,
  onTry: (t: TryReport) => void,
  deadline?: AbortSignal,
): Promise<CallOutcome> {
  const reports: TryReport[] = [];
  let last: CallOutcome = { tries: reports, timedOut: false };
  for (let attempt = 1; attempt <= tries; attempt++) {
    if (deadline?.aborted) return { ...last, timedOut: true };
    const started = performance.now();
    const time = Date.now();
    try {
      const response = await httpCall(req, deadline);
      const report = { time, durationMs: performance.now() - started, status: response.status, error: null };
      reports.push(report);
      onTry(report);
      last = { response, tries: reports, timedOut: false };
      if (response.status < 500) return last;
    } catch (err) {
      const message = (err as Error).message;
      const report = { time, durationMs: performance.now() - started, status: null, error: message };
      reports.push(report);
      onTry(report);
      last = { error: message, tries: reports, timedOut: false };
      if (err instanceof PermanentError) return last;
      if (deadline?.aborted) return { ...last, timedOut: true };
    }
    if (attempt < tries) await sleep(Math.min(2000, 100 * 2 ** (attempt - 1)), deadline);
  }
  return { ...last, timedOut: deadline?.aborted ?? false };
}

/** An answer body as the gateway forwards it: parsed JSON, else the text. */
export function bodyValue(body: Buffer): unknown {
  const text = body.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

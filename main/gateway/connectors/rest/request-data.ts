/**
 * The data a request carries, as the gateway reads it: path variables, then query parameters, then the
 * body's fields (a JSON object, the first element of a JSON list, form or multipart fields; file parts
 * are ignored), a non-JSON body as {"text": body}.
 */
import type { IncomingMessage } from 'node:http';

/** An HTTP answer decided while reading the request (400, 413, 415). */
export class RequestError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** Reads the body, refusing more than limit bytes with 413. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(new RequestError(413, `Request body is too large (limit ${limit} bytes)`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        chunks.length = 0;
        reject(new RequestError(413, `Request body is too large (limit ${limit} bytes)`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (failed) return;
      failed = true; // settled
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    req.on('error', (err) => {
      if (failed) return;
      failed = true;
      reject(err);
    });
    req.on('close', () => {
      if (failed) return;
      failed = true;
      reject(new RequestError(400, 'The client closed the connection before sending the whole body'));
    });
  });
}

export interface BodyData {
  fields: Record<string, unknown>;
  /** e.g. "file part 'photo' (photo.jpg) ignored" */
  notes: string[];
}

function isJsonType(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json');
}

/** Parses a body by its content type. Malformed JSON under a JSON content type is a 400. */
export async function parseBody(body: Buffer, contentTypeHeader: string | undefined): Promise<BodyData> {
  const header = contentTypeHeader ?? '';
  const type = header.split(';')[0]!.trim().toLowerCase();
  if (body.length === 0) return { fields: {}, notes: [] };
  if (type === 'multipart/form-data') return parseMultipart(body, header);
  if (type === 'application/x-www-form-urlencoded') {
    const fields: Record<string, unknown> = {};
    for (const [k, v] of new URLSearchParams(body.toString('utf8'))) fields[k] = v;
    return { fields, notes: [] };
  }
  if (type === 'application/octet-stream') return { fields: {}, notes: [] };
  const text = body.toString('utf8');
  if (isJsonType(type)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new RequestError(400, `Malformed JSON body: ${(err as Error).message}`);
    }
    return { fields: jsonFields(parsed, text), notes: [] };
  }
  // no or another content type: JSON if it is JSON (the gateway tries that first), else text
  const first = text.trimStart()[0];
  if (first === '{' || first === '[') {
    try {
      return { fields: jsonFields(JSON.parse(text), text), notes: [] };
    } catch {
      // not JSON after all
    }
  }
  return { fields: { text }, notes: [] };
}

function jsonFields(parsed: unknown, text: string): Record<string, unknown> {
  const value = Array.isArray(parsed) ? parsed[0] : parsed;
  if (typeof value === 'object' && value !== null && !Array.isArray(value))
    return value as Record<string, unknown>;
  return { text };
}

async function parseMultipart(body: Buffer, contentType: string): Promise<BodyData> {
  let form: FormData;
  try {
    form = await new Request('http://connector.local/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    }).formData();
  } catch (err) {
    throw new RequestError(400, `Malformed multipart/form-data body: ${(err as Error).message}`);
  }
  const fields: Record<string, unknown> = {};
  const notes: string[] = [];
  for (const [name, value] of form) {
    if (typeof value === 'string') fields[name] = value;
    else notes.push(`file part '${name}' (${value.name || 'unnamed'}, ${value.size} bytes) ignored`);
  }
  return { fields, notes };
}

/** Path variables of an endpoint such as /devices/{devname}; null when the path does not match. */
export function compilePathTemplate(endpoint: string): { regex: RegExp; names: string[] } | null {
  if (!/[{:]/.test(endpoint)) return null;
  const names: string[] = [];
  const pattern = endpoint
    .split('/')
    .map((seg) => {
      const m = /^\{([^}]+)\}$/.exec(seg) ?? /^:(\w+)$/.exec(seg);
      if (m) {
        names.push(m[1]!);
        return '([^/]+)';
      }
      return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return names.length ? { regex: new RegExp(`^${pattern}$`), names } : null;
}

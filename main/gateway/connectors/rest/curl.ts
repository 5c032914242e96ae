/** Ready-made curl commands and example bodies for the connector's endpoints. */
import type { ConverterSpec, ValueSpec } from './config.ts';
import { parsePath, parseTemplate } from './expressions.ts';

/** A shell-quoted argument ('...' with embedded quotes escaped). */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function sampleFor(type: string, token: string): unknown {
  switch (type) {
    case 'double':
    case 'float':
      return /hum/i.test(token) ? 48.5 : 21.5;
    case 'integer':
    case 'int':
    case 'long':
      return 42;
    case 'boolean':
    case 'bool':
      return true;
    default:
      return /name/i.test(token) ? 'SN-001' : /type|profile/i.test(token) ? 'default' : `${token}-value`;
  }
}

function put(target: Record<string, unknown>, token: string, value: unknown): void {
  if (Object.hasOwn(target, token)) return;
  const path = parsePath(token);
  if (!path || path.length === 0) return;
  let cur: Record<string, unknown> | unknown[] = target;
  path.forEach((seg, i) => {
    const last = i === path.length - 1;
    const nextIsIndex = typeof path[i + 1] === 'number';
    const holder = cur as Record<string | number, unknown>;
    if (last) {
      if (holder[seg] === undefined) holder[seg] = value;
      return;
    }
    if (typeof holder[seg] !== 'object' || holder[seg] === null) holder[seg] = nextIsIndex ? [] : {};
    cur = holder[seg] as Record<string, unknown>;
  });
}

/** An example request body that fills every token of a json converter; null for custom converters. */
export function exampleBody(
  converter: ConverterSpec,
  pathVars: string[] = [],
): Record<string, unknown> | null {
  if (converter.type === 'custom') return { data: '0x41200000' };
  const body: Record<string, unknown> = {};
  const skip = new Set(pathVars);
  const fill = (template: string, type: string) => {
    for (const part of parseTemplate(template))
      if (part.token !== undefined && !skip.has(part.token))
        put(body, part.token, sampleFor(type, part.token));
  };
  const info = converter.deviceInfo;
  if (info.nameSource === 'request') fill(info.nameExpression, 'string');
  if (info.profileSource === 'request') fill(info.profileExpression, 'string');
  const values: ValueSpec[] = [...converter.attributes, ...converter.timeseries];
  for (const v of values) {
    fill(v.key, 'string');
    fill(v.value, v.type);
  }
  return body;
}

export interface CurlInput {
  method: string;
  url: string;
  username?: string;
  password?: string;
  json?: unknown;
  insecure?: boolean;
  headers?: Record<string, string>;
  text?: string;
  form?: { fields?: Record<string, string>; files?: { name: string; filename: string }[] };
}

export function curlCommand(c: CurlInput): string {
  const args = ['curl'];
  if (c.insecure) args.push('-k');
  args.push('-X', c.method, shellQuote(c.url));
  if (c.username !== undefined) args.push('-u', shellQuote(`${c.username}:${c.password ?? ''}`));
  for (const [k, v] of Object.entries(c.headers ?? {})) args.push('-H', shellQuote(`${k}: ${v}`));
  if (c.json !== undefined)
    args.push('-H', shellQuote('Content-Type: application/json'), '-d', shellQuote(JSON.stringify(c.json)));
  else if (c.text !== undefined) args.push('--data-binary', shellQuote(c.text));
  else if (c.form) {
    for (const [k, v] of Object.entries(c.form.fields ?? {})) args.push('-F', shellQuote(`${k}=${v}`));
    for (const f of c.form.files ?? []) args.push('-F', shellQuote(`${f.name}=@${f.filename}`));
  }
  return args.join(' ');
}

/** The endpoint's path with its {variables} filled in with examples. */
export function examplePath(endpoint: string): string {
  return endpoint.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    /name/i.test(name) ? 'SN-001' : `${name}-1`,
  );
}

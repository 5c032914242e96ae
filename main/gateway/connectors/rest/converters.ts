/**
 * Uplink converters: request data -> device name, profile, attributes and telemetry. The json converter
 * follows the gateway (expressions, templated keys, tsField) and does better on types: values are sent as
 * double / integer / boolean / string as configured, not all as strings. Custom converters are classes
 * loaded from <data dir>/converters.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type {
  ConverterSpec,
  CustomConverterSpec,
  DeviceInfoSpec,
  JsonConverterSpec,
  ValueSpec,
} from './config.ts';
import { lookup, render, renderString, textOf } from './expressions.ts';
import { parseTimestamp } from './timestamps.ts';

export interface TsEntry {
  ts: number;
  values: Record<string, unknown>;
}

export interface ConvertedData {
  deviceName: string;
  deviceType: string;
  attributes: Record<string, unknown>;
  telemetry: TsEntry[];
  /** values not sent and why */
  warnings: string[];
}

/** What a converter gets besides the request data. */
export interface RequestContext {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** the raw body */
  body: Buffer;
  contentType: string;
}

export interface UplinkConverter {
  readonly name: string;
  convert(data: Record<string, unknown>, request: RequestContext): Promise<ConvertedData> | ConvertedData;
}

/** A request the converter cannot turn into data (the client's fault): 400. */
export class ConversionError extends Error {}

/** A converter that failed (the configuration's or the class's fault): 500 naming the converter. */
export class ConverterFailure extends Error {
  readonly converter: string;
  constructor(converter: string, cause: unknown) {
    super(`Converter ${converter} failed: ${(cause as Error)?.message ?? String(cause)}`);
    this.converter = converter;
  }
}

const TRUE = new Set(['true', '1', 'yes', 'y', 'on', 't']);
const FALSE = new Set(['false', '0', 'no', 'n', 'off', 'f', '']);

/** Converts a value to the configured type; an error message when it cannot be. */
export function typedValue(value: unknown, type: string): { value: unknown } | { error: string } {
  switch (type) {
    case 'double':
    case 'float': {
      const n =
        typeof value === 'number'
          ? value
          : typeof value === 'string' && value.trim() !== ''
            ? Number(value)
            : NaN;
      if (typeof value === 'boolean') return { value: value ? 1 : 0 };
      return Number.isFinite(n) ? { value: n } : { error: `${JSON.stringify(value)} is not a number` };
    }
    case 'integer':
    case 'int':
    case 'long': {
      if (typeof value === 'boolean') return { value: value ? 1 : 0 };
      const n =
        typeof value === 'number'
          ? value
          : typeof value === 'string' && value.trim() !== ''
            ? Number(value)
            : NaN;
      return Number.isFinite(n)
        ? { value: Math.trunc(n) }
        : { error: `${JSON.stringify(value)} is not an integer` };
    }
    case 'boolean':
    case 'bool': {
      if (typeof value === 'boolean') return { value };
      if (typeof value === 'number') return { value: value !== 0 };
      if (typeof value === 'string') {
        const s = value.trim().toLowerCase();
        if (TRUE.has(s)) return { value: true };
        if (FALSE.has(s)) return { value: false };
      }
      return { error: `${JSON.stringify(value)} is not a boolean` };
    }
    case 'json':
    case 'raw':
      return { value };
    default:
      return { value: textOf(value) };
  }
}

function deviceField(
  expression: string,
  source: 'request' | 'constant',
  data: Record<string, unknown>,
  what: string,
  fallback?: string,
): string {
  if (source === 'constant') return expression;
  const v = renderString(expression, data);
  if (v !== undefined && v !== '') return v;
  if (fallback !== undefined) return fallback;
  throw new ConversionError(`${what} expression '${expression}' found nothing in the request`);
}

export function deviceOf(
  info: DeviceInfoSpec,
  data: Record<string, unknown>,
): { name: string; type: string } {
  return {
    name: deviceField(info.nameExpression, info.nameSource, data, 'Device name'),
    type: deviceField(info.profileExpression, info.profileSource, data, 'Device profile', 'default'),
  };
}

interface ResolvedValue {
  key: string;
  value: unknown;
}

function resolveValue(
  spec: ValueSpec,
  data: Record<string, unknown>,
  warnings: string[],
): ResolvedValue | null {
  const key = renderString(spec.key, data);
  if (key === undefined || key === '') {
    warnings.push(`key '${spec.key}': found nothing in the request (not sent)`);
    return null;
  }
  const raw = render(spec.value, data);
  if (raw === undefined) {
    warnings.push(`${key}: '${spec.value}' found nothing in the request (not sent)`);
    return null;
  }
  const typed = typedValue(raw, spec.type);
  if ('error' in typed) {
    warnings.push(`${key}: ${typed.error} (type ${spec.type}; not sent)`);
    return null;
  }
  return { key, value: typed.value };
}

/** The request's own timestamp: ts or timestamp (the gateway's fallback), else now. */
function requestTs(data: Record<string, unknown>, now: number): number {
  const own = data.ts ?? data.timestamp;
  return (own !== undefined ? parseTimestamp(own) : undefined) ?? now;
}

function tsOf(
  spec: ValueSpec,
  data: Record<string, unknown>,
  fallback: number,
  warnings: string[],
  key: string,
): number {
  if (!spec.tsField) return fallback;
  const raw = spec.tsField.includes('${') ? render(spec.tsField, data) : lookup(data, spec.tsField);
  if (raw === undefined) return fallback;
  const ts = parseTimestamp(raw, { dayfirst: spec.dayfirst, yearfirst: spec.yearfirst });
  if (ts === undefined) {
    warnings.push(`${key}: tsField value ${JSON.stringify(raw)} is not a date (the request time is used)`);
    return fallback;
  }
  return ts;
}

export class JsonUplinkConverter implements UplinkConverter {
  readonly name = 'json';
  private readonly spec: JsonConverterSpec;

  constructor(spec: JsonConverterSpec) {
    this.spec = spec;
  }

  convert(data: Record<string, unknown>): ConvertedData {
    const { name, type } = deviceOf(this.spec.deviceInfo, data);
    const warnings: string[] = [];
    const attributes: Record<string, unknown> = {};
    for (const spec of this.spec.attributes) {
      const r = resolveValue(spec, data, warnings);
      if (r) attributes[r.key] = r.value;
    }
    const telemetry: TsEntry[] = [];
    if (this.spec.timeseries.length) {
      const fallback = requestTs(data, Date.now());
      for (const spec of this.spec.timeseries) {
        const r = resolveValue(spec, data, warnings);
        if (!r) continue;
        const ts = tsOf(spec, data, fallback, warnings, r.key);
        const entry = telemetry.find((e) => e.ts === ts);
        if (entry) entry.values[r.key] = r.value;
        else telemetry.push({ ts, values: { [r.key]: r.value } });
      }
    }
    return { deviceName: name, deviceType: type, attributes, telemetry, warnings };
  }
}

// ---------------------------------------------------------------------------------------------------------
// Custom converters
// ---------------------------------------------------------------------------------------------------------

/** The class a custom converter module exports. */
export interface CustomConverterClass {
  new (config: Record<string, unknown>): { convert(data: unknown, request?: RequestContext): unknown };
}

/** The gateway's sample converter class, copied into the converters folder on first use. */
export const SAMPLE_CONVERTER = 'CustomRestUplinkConverter';
const SAMPLE_NAMES = new Set([SAMPLE_CONVERTER.toLowerCase()]);
const SAMPLE_FILE = `${SAMPLE_CONVERTER}.mjs`;
const MODULE_FILE = /\.(mjs|js)$/;

/** Where a data directory's custom converters are (the desktop shell opens it: CONVERTERS_FOLDER). */
export function convertersDirOf(dataDir: string): string {
  return join(dataDir, 'converters');
}

export interface ConverterModuleFile {
  file: string;
  sizeBytes: number;
  modifiedTime: number;
}

/** The modules of the converters folder (none when it does not exist yet), without running them. */
export function listConverterModules(dir: string): ConverterModuleFile[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => MODULE_FILE.test(f))
    .sort((a, b) => a.localeCompare(b))
    .flatMap((file) => {
      const st = statSync(join(dir, file), { throwIfNoEntry: false });
      return st?.isFile() ? [{ file, sizeBytes: st.size, modifiedTime: Math.round(st.mtimeMs) }] : [];
    });
}
const SAMPLE_SOURCE = new URL('./sample-converters/CustomRestUplinkConverter.mjs', import.meta.url);

/** Where the module exporting `extension` is: <name>.mjs / <name>.js, else any module of the folder. */
async function findConverterClass(dir: string, extension: string): Promise<CustomConverterClass | undefined> {
  const modules = listConverterModules(dir);
  const isPreferred = (m: ConverterModuleFile) =>
    m.file.replace(MODULE_FILE, '').toLowerCase() === extension.toLowerCase();
  for (const m of [...modules.filter(isPreferred), ...modules.filter((x) => !isPreferred(x))]) {
    // the modification time busts the import cache, so an edited converter is picked up on restart
    const url = `${pathToFileURL(join(dir, m.file)).href}?v=${m.modifiedTime}`;
    const mod = (await import(url)) as Record<string, unknown>;
    const found = mod[extension] ?? (isPreferred(m) ? mod.default : undefined);
    if (typeof found === 'function') return found as CustomConverterClass;
  }
  return undefined;
}

/**
 * Loads the class named by `extension` from the converters folder; the sample (CustomRestUplinkConverter,
 * also exported as CustomRESTUplinkConverter) is copied there on first use.
 */
export async function loadCustomConverterClass(
  dir: string,
  extension: string,
): Promise<CustomConverterClass> {
  let cls = await findConverterClass(dir, extension);
  if (!cls && SAMPLE_NAMES.has(extension.toLowerCase())) {
    mkdirSync(dir, { recursive: true });
    const target = join(dir, SAMPLE_FILE);
    if (!existsSync(target)) copyFileSync(SAMPLE_SOURCE, target);
    cls = await findConverterClass(dir, extension);
  }
  if (!cls)
    throw new Error(
      `No converter class '${extension}': put a .mjs or .js module exporting class ${extension} in ${dir}`,
    );
  return cls;
}

function entriesOf(v: unknown): Record<string, unknown>[] {
  if (Array.isArray(v))
    return v.filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null);
  if (typeof v === 'object' && v !== null) return [v as Record<string, unknown>];
  return [];
}

/** A custom converter's answer ({deviceName, deviceType, attributes, telemetry}, lists or objects) normalized. */
export function normalizeConverted(
  out: unknown,
  info: DeviceInfoSpec,
  data: Record<string, unknown>,
): ConvertedData {
  if (typeof out !== 'object' || out === null) throw new Error('convert() must return an object');
  const o = out as Record<string, unknown>;
  const given = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  // deviceInfo's expressions only for what the converter left out (they may find nothing in the request)
  const deviceName =
    given(o.deviceName) ?? deviceField(info.nameExpression, info.nameSource, data, 'Device name');
  const deviceType =
    given(o.deviceType) ??
    deviceField(info.profileExpression, info.profileSource, data, 'Device profile', 'default');
  const warnings: string[] = [];
  const attributes: Record<string, unknown> = {};
  for (const e of entriesOf(o.attributes))
    for (const [k, v] of Object.entries(e)) {
      if (v === undefined || v === null) warnings.push(`${k}: None (not sent)`);
      else attributes[k] = v;
    }
  const now = Date.now();
  const telemetry: TsEntry[] = [];
  for (const e of entriesOf(o.telemetry)) {
    const withTs = 'values' in e && typeof e.values === 'object' && e.values !== null;
    const ts = withTs ? (parseTimestamp(e.ts) ?? now) : now;
    const values: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(withTs ? (e.values as Record<string, unknown>) : e)) {
      if (v === undefined || v === null) warnings.push(`${k}: None (not sent)`);
      else values[k] = v;
    }
    if (Object.keys(values).length === 0) continue;
    const same = telemetry.find((t) => t.ts === ts);
    if (same) Object.assign(same.values, values);
    else telemetry.push({ ts, values });
  }
  return { deviceName, deviceType, attributes, telemetry, warnings };
}

export class CustomUplinkConverter implements UplinkConverter {
  readonly name: string;
  private readonly spec: CustomConverterSpec;
  private readonly instance: { convert(data: unknown, request?: RequestContext): unknown };

  constructor(spec: CustomConverterSpec, cls: CustomConverterClass) {
    this.name = spec.extension;
    this.spec = spec;
    this.instance = new cls(spec.section);
  }

  async convert(data: Record<string, unknown>, request: RequestContext): Promise<ConvertedData> {
    let out: unknown;
    try {
      out = await this.instance.convert(data, request);
      return normalizeConverted(out, this.spec.deviceInfo, data);
    } catch (err) {
      if (err instanceof ConversionError) throw err;
      throw new ConverterFailure(this.name, err);
    }
  }
}

/** Builds the converter of a mapping entry (custom classes loaded from convertersDir). */
export async function createConverter(spec: ConverterSpec, convertersDir: string): Promise<UplinkConverter> {
  if (spec.type === 'json') return new JsonUplinkConverter(spec);
  const cls = await loadCustomConverterClass(convertersDir, spec.extension);
  try {
    return new CustomUplinkConverter(spec, cls);
  } catch (err) {
    throw new ConverterFailure(spec.extension, err);
  }
}

import { SNIPPET_LIMITS } from '../../../shared/schemas/mqtt-snippets.ts';
import type { SandboxRow } from '../../../shared/schemas/sandbox.ts';
import type { DurableDb } from '../../store/durable-db.ts';

/**
 * Which store tables a sandbox carries, and how. Every table not named in NOT_CARRIED is carried as
 * rows (so tables added by later migrations travel without changes here); telemetry travels keyed by
 * entity id and key name, never by the store's numbers.
 */
export const NOT_CARRIED: Record<string, string> = {
  _migrations: "the store's own bookkeeping",
  _journal_state: "the store's own bookkeeping",
  settings: "the instance's own identity and keys (tenant id, signing key): they stay the target's",
  revoked_sessions: 'sessions of this instance only',
  device_claims: 'claiming secrets expire within a day',
  edge_events: "an edge's delivery queue belongs to the running instance",
  rpc: 'persistent RPC calls in flight belong to the running instance',
  entity_nums: "the store's numbers for time series (telemetry is carried by entity id instead)",
  ts_key: "the store's key dictionary (telemetry is carried by key name instead)",
  ts_kv: 'carried as history lines, by entity id and key name',
  ts_kv_latest: 'carried as latest lines, by entity id and key name',
  ts_pack: 'packed history: carried as history lines, by entity id and key name',
  ts_pack_latest: 'packed latest values: carried as latest lines, by entity id and key name',
  ts_keyset: "the store's keysets of packed history (telemetry is carried by key name instead)",
  ts_keyset_key: "the store's keysets of packed history (telemetry is carried by key name instead)",
};

/** Tables holding secrets of users: carried only with includePasswords. */
export const PASSWORD_TABLES = new Set(['api_keys']);
/** Columns never carried, or only with includePasswords. */
export const SECRET_COLUMNS: Record<string, { always: string[]; unlessPasswords: string[] }> = {
  users: {
    always: ['activate_token', 'activate_token_exp', 'reset_token', 'reset_token_exp'],
    unlessPasswords: ['password_hash'],
  },
};

/** Columns that are the store's own numbers: not carried, given again on import. */
export const LOCAL_COLUMNS: Record<string, string[]> = { devices: ['num'] };

/** The column naming an entity (a conflict is the same name under another id). */
export const NAME_COLUMNS: Record<string, string> = {
  customers: 'title',
  users: 'email',
  device_profiles: 'name',
  devices: 'name',
  device_credentials: 'credentials_id',
  edges: 'name',
  asset_profiles: 'name',
  assets: 'name',
  rest_connectors: 'name',
  simulation_scenarios: 'name',
  rule_chains: 'name',
  table_views: 'name',
  dashboards: 'title',
};

/** The `name` inside a JSON column's text, if it has one. */
function jsonName(text: SandboxRow[string] | undefined): string | undefined {
  try {
    const name = (JSON.parse(String(text)) as { name?: unknown }).name;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Tables that are one ordered list keyed by position: merged into the instance's list by name (the same
 * name replaced where it is, others appended, up to `max`), never by position, unless replacing everything.
 */
export const LIST_TABLES: Record<
  string,
  { position: string; name: (row: SandboxRow) => string | undefined; max: number }
> = {
  mqtt_snippets: { position: 'position', name: (row) => jsonName(row.body), max: SNIPPET_LIMITS.count },
};

/** The entity type each entity table holds (for telemetry of entities other than devices). */
export const ENTITY_TYPES: Record<string, string> = {
  customers: 'CUSTOMER',
  users: 'USER',
  device_profiles: 'DEVICE_PROFILE',
  devices: 'DEVICE',
  edges: 'EDGE',
  asset_profiles: 'ASSET_PROFILE',
  assets: 'ASSET',
  rule_chains: 'RULE_CHAIN',
  dashboards: 'DASHBOARD',
  alarms: 'ALARM',
};

/**
 * Rows that go with an entity when it is replaced by another (the conflict mode "replace"): its
 * credentials, attributes, relations, alarms and assignments.
 */
export const DEPENDENT_ROWS: [table: string, column: string][] = [
  ['device_credentials', 'device_id'],
  ['attributes', 'entity_id'],
  ['relations', 'from_id'],
  ['relations', 'to_id'],
  ['entity_alarms', 'entity_id'],
  ['dashboard_customers', 'dashboard_id'],
  ['user_settings', 'user_id'],
  ['rule_node_states', 'entity_id'],
];

/** Insert order: what others point at comes first (foreign keys are not enforced, but it reads well). */
const ORDER = [
  'customers',
  'users',
  'user_settings',
  'api_keys',
  'rule_chains',
  'device_profiles',
  'asset_profiles',
  'devices',
  'device_credentials',
  'assets',
  'edges',
  'relations',
  'attributes',
  'dashboards',
  'dashboard_customers',
];

export interface CarriedTable {
  name: string;
  columns: string[];
  /** the primary key's columns */
  key: string[];
}

/** The carried tables of this store, in insert order, with their columns (from the schema itself). */
export function carriedTables(db: DurableDb, includePasswords: boolean): CarriedTable[] {
  const names = db
    .all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .map((r) => r.name)
    .filter((n) => !(n in NOT_CARRIED) && (includePasswords || !PASSWORD_TABLES.has(n)));
  const rank = (n: string) => (ORDER.includes(n) ? ORDER.indexOf(n) : ORDER.length);
  names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return names.map((name) => tableInfo(db, name, includePasswords));
}

export function tableInfo(db: DurableDb, name: string, includePasswords: boolean): CarriedTable {
  const info = db.all<{ name: string; pk: number }>(`PRAGMA table_info("${name}")`);
  const secret = SECRET_COLUMNS[name];
  const dropped = new Set([
    ...(LOCAL_COLUMNS[name] ?? []),
    ...(secret?.always ?? []),
    ...(includePasswords ? [] : (secret?.unlessPasswords ?? [])),
  ]);
  const key = info
    .filter((c) => c.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((c) => c.name);
  return {
    name,
    columns: info.map((c) => c.name).filter((c) => !dropped.has(c)),
    key: key.length && !key.some((k) => dropped.has(k)) ? key : ['id'],
  };
}

import type { PlatformContext } from './context.ts';
import { badRequestParams } from './errors.ts';
import { parseJson } from './paging.ts';

/** ThingsBoard's UserSettingsType; the reserved ones are the platform's own. */
const TYPES = [
  'GENERAL',
  'VISITED_DASHBOARDS',
  'QUICK_LINKS',
  'DOC_LINKS',
  'DASHBOARDS',
  'GETTING_STARTED',
  'NOTIFICATIONS',
  'MOBILE',
] as const;
const RESERVED = new Set(['VISITED_DASHBOARDS', 'MOBILE']);
export type UserSettingsType = (typeof TYPES)[number];

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A settings type from a path: case-insensitive, reserved ones refused (ThingsBoard's checks). */
export function settingsType(text: string): UserSettingsType {
  const type = TYPES.find((t) => t === text.toUpperCase());
  if (!type) throw badRequestParams(`Settings type "${text}" is not supported!`);
  if (RESERVED.has(type))
    throw badRequestParams(`Settings with type: ${text} are reserved for internal use!`);
  return type;
}

/** Settings JSON per user and type (ThingsBoard's user_settings), kept durably. */
export class UserSettingsService {
  private readonly ctx: PlatformContext;

  constructor(ctx: PlatformContext) {
    this.ctx = ctx;
  }

  get(userId: string, type: UserSettingsType): Json {
    const row = this.ctx.db.get<{ settings: string }>(
      'SELECT settings FROM user_settings WHERE user_id = ? AND type = ?',
      [userId, type],
    );
    return parseJson(row?.settings);
  }

  /** Replaces the settings of a type; returns them. */
  async save(userId: string, type: UserSettingsType, settings: Json): Promise<Json> {
    await this.ctx.admit?.();
    checkKeys(settings);
    await this.ctx.db.write((w) =>
      w.run(
        `INSERT INTO user_settings (user_id, type, settings) VALUES (?, ?, ?)
         ON CONFLICT (user_id, type) DO UPDATE SET settings = excluded.settings`,
        [userId, type, JSON.stringify(settings)],
      ),
    );
    return settings;
  }

  /** Sets each field of the update; a key "a.b.c" sets that nested field (objects made on the way). */
  async update(userId: string, type: UserSettingsType, update: Json): Promise<void> {
    const settings = this.get(userId, type);
    for (const [expression, value] of Object.entries(update)) {
      const path = expression.trim().split('.');
      let node = settings;
      for (const name of path.slice(0, -1)) {
        if (!isObject(node[name])) node[name] = {};
        node = node[name] as Json;
      }
      node[path[path.length - 1]!] = value;
    }
    await this.save(userId, type, settings);
  }

  /** Removes fields by their dotted paths ("a.b"); paths that lead nowhere are ignored. */
  async delete(userId: string, type: UserSettingsType, paths: string[]): Promise<void> {
    const exists = this.ctx.db.get('SELECT 1 FROM user_settings WHERE user_id = ? AND type = ?', [
      userId,
      type,
    ]);
    if (!exists) return;
    const settings = this.get(userId, type);
    for (const p of paths) {
      const path = p.trim().replace(/^\$\./, '').split('.');
      let node: unknown = settings;
      for (const name of path.slice(0, -1)) node = isObject(node) ? node[name] : undefined;
      if (isObject(node)) delete node[path[path.length - 1]!];
    }
    await this.save(userId, type, settings);
  }
}

function checkKeys(settings: Json): void {
  for (const key of Object.keys(settings))
    if (key.includes('.') || key.includes(','))
      throw badRequestParams('Json field name should not contain "." or "," symbols');
}

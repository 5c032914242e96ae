import { randomUUID } from 'node:crypto';
import type { DurableDb } from '../store/durable-db.ts';
import { TelemetryRepository } from './telemetry-repository.ts';
import { PlatformEvents } from './events.ts';

/** What every service shares: the store, the tenant and the event bus. */
export interface PlatformContext {
  db: DurableDb;
  tenantId: string;
  telemetry: TelemetryRepository;
  events: PlatformEvents;
  now: () => number;
  /**
   * Called before a write that adds data: rejects with a StoreFullError (507, MQTT 0x97) when the store is
   * at its size budget (see StoreBudget); none in contexts without a budget.
   */
  admit?: () => Promise<void>;
}

export async function createContext(db: DurableDb): Promise<PlatformContext> {
  const tenantId = await readOrCreateSetting(db, 'tenantId', () => randomUUID());
  return {
    db,
    tenantId,
    telemetry: new TelemetryRepository(db),
    events: new PlatformEvents(),
    now: Date.now,
  };
}

export async function readOrCreateSetting(db: DurableDb, key: string, create: () => string): Promise<string> {
  const row = db.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [key]);
  if (row) return JSON.parse(row.value) as string;
  const value = create();
  await db.write((w) =>
    w.run('INSERT INTO settings (key, value) VALUES (?, ?)', [key, JSON.stringify(value)]),
  );
  return value;
}

export function getSetting<T>(db: DurableDb, key: string): T | undefined {
  const row = db.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [key]);
  return row ? (JSON.parse(row.value) as T) : undefined;
}

export function ref<T extends string>(entityType: T, id: string): { entityType: T; id: string } {
  return { entityType, id };
}

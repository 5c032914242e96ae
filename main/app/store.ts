import type { PlatformConfig } from '../config.ts';
import { lockDataDir } from '../store/data-dir-lock.ts';
import { DurableDb } from '../store/durable-db.ts';
import { migrations } from '../platform/migrations.ts';
import type { Lifecycle } from './lifecycle.ts';

/** The data directory, locked for this process, and the durable store in it. */
export async function setupStore(config: PlatformConfig, life: Lifecycle): Promise<DurableDb> {
  const lock = await lockDataDir(config.dataDir);
  life.onStop(() => lock.release());
  const db = await DurableDb.open({ dir: config.dataDir, migrations });
  life.onStop(() => db.close());
  return db;
}

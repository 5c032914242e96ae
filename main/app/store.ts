import type { PlatformConfig } from '../config.ts';
import { lockDataDir } from '../store/data-dir-lock.ts';
import { DurableDb } from '../store/durable-db.ts';
import { migrations } from '../platform/migrations.ts';
import { loadSchemaImage } from '../platform/schema-image.ts';
import type { Lifecycle } from './lifecycle.ts';

/** A data directory being opened: locked, its store replaying (the caller may load other modules meanwhile). */
export interface StoreOpening {
  lock: { release(): void };
  db: Promise<DurableDb>;
}

/** Locks the data directory and starts opening its store; a long journal replays on a worker thread. */
export async function beginStore(config: PlatformConfig): Promise<StoreOpening> {
  const lock = await lockDataDir(config.dataDir);
  const db = DurableDb.open({ dir: config.dataDir, migrations, schemaImage: loadSchemaImage });
  db.catch(() => {}); // awaited by setupStore, which reports the failure
  return { lock, db };
}

/** The data directory, locked for this process, and the durable store in it. */
export async function setupStore(
  config: PlatformConfig,
  life: Lifecycle,
  opening?: StoreOpening,
): Promise<DurableDb> {
  const { lock, db: opened } = opening ?? (await beginStore(config));
  life.onStop(() => lock.release());
  const db = await opened;
  life.onStop(() => db.close());
  return db;
}

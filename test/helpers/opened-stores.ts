import { afterEach } from 'vitest';
import { DurableDb, type DurableDbOptions } from '../../main/store/durable-db.ts';

/**
 * Opens stores for a test file; those a test leaves open (as a crash would) are closed after it, newest
 * first, so that no file handle is left for the garbage collector.
 */
export function openedStores(): (options: DurableDbOptions) => Promise<DurableDb> {
  const opened: DurableDb[] = [];
  afterEach(async () => {
    for (const db of opened.splice(0).reverse()) await db.close();
  });
  return async (options) => {
    const db = await DurableDb.open(options);
    opened.push(db);
    return db;
  };
}

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../../main/platform/migrations.ts';
import { loadSchemaImage } from '../../../main/platform/schema-image.ts';
import type { DurableDb } from '../../../main/store/durable-db.ts';
import { SNAPSHOT_FILE } from '../../../main/store/snapshot-file.ts';
import { openedStores } from '../../helpers/opened-stores.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const openStore = openedStores();

async function open(schemaImage?: () => Uint8Array | null): Promise<{ db: DurableDb; dir: string }> {
  const dir = tempDir();
  const db = await openStore({ dir, migrations, ...(schemaImage ? { schemaImage } : {}) });
  return { db, dir };
}

/** what a store's schema is: every table, index and trigger as created, the migrations and user_version */
function schemaOf(db: DurableDb): unknown {
  return {
    objects: db.all('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name'),
    migrations: db.all('SELECT version, name FROM _migrations ORDER BY version'),
    userVersion: db.get('PRAGMA user_version'),
  };
}

describe("the platform's schema image", () => {
  it('is what running every migration builds (after adding a migration: npm run build:schema-image)', async () => {
    expect(loadSchemaImage(), 'main/platform/schema-image.sqlite.gz is missing').not.toBeNull();
    const migrated = await open();
    const imaged = await open(loadSchemaImage);
    expect(existsSync(join(imaged.dir, SNAPSHOT_FILE)), 'the image was not used').toBe(true);
    // migrations the image lacks run on it (applied now, not at time 0): the image is due a rebuild
    expect(imaged.db.all('SELECT version, name FROM _migrations WHERE applied_at <> 0')).toEqual([]);
    expect(schemaOf(imaged.db)).toEqual(schemaOf(migrated.db));
  });
});

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DurableDb, Migration } from '../../../main/store/durable-db.ts';
import { exportSchemaImage } from '../../../main/store/schema-image.ts';
import { SNAPSHOT_FILE } from '../../../main/store/snapshot-file.ts';
import { openedStores } from '../../helpers/opened-stores.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

/** migrations that count their runs, so a test sees whether the image stood in for them */
function counted(): { migrations: Migration[]; runs: number[] } {
  const runs: number[] = [];
  const migrations: Migration[] = [
    {
      version: 1,
      name: 'items',
      up: (w) => {
        runs.push(1);
        w.run('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)');
      },
    },
    {
      version: 5,
      name: 'item index',
      up: (w) => {
        runs.push(5);
        w.run('CREATE INDEX items_name ON items(name)');
      },
    },
  ];
  return { migrations, runs };
}

const open = openedStores();
afterEach(() => {
  vi.restoreAllMocks();
});

async function imageOf(migrations: Migration[]): Promise<Uint8Array> {
  const db = await open({ dir: tempDir(), migrations });
  return exportSchemaImage(db.raw);
}

function schemaOf(db: DurableDb): unknown[] {
  return db.all("SELECT type, name, sql FROM sqlite_master WHERE name <> '_journal_state' ORDER BY name");
}

describe('a schema image', () => {
  it('stands for the migrations in a new data directory, and what is written on it survives losing memory', async () => {
    const built = counted();
    const image = await imageOf(built.migrations);
    const reference = await open({ dir: tempDir(), migrations: built.migrations });

    const { migrations, runs } = counted();
    const dir = tempDir();
    const db = await open({ dir, migrations, schemaImage: () => image });
    expect(runs).toEqual([]);
    expect(existsSync(join(dir, SNAPSHOT_FILE))).toBe(true);
    expect(schemaOf(db)).toEqual(schemaOf(reference));
    await db.write((w) => w.run('INSERT INTO items (id, name) VALUES (1, ?)', ['kept']));

    // no close(): as after kill -9, the snapshot the image became and the journal hold the store
    const reopened = await open({ dir, migrations });
    expect(reopened.all('SELECT id, name FROM items')).toEqual([{ id: 1, name: 'kept' }]);
    expect(runs).toEqual([]);
  });

  it('built from the first migrations leaves the later ones to run, in order', async () => {
    const image = await imageOf(counted().migrations.slice(0, 1));
    const { migrations, runs } = counted();
    const db = await open({ dir: tempDir(), migrations, schemaImage: () => image });
    expect(runs).toEqual([5]);
    expect(db.all('SELECT version FROM _migrations ORDER BY version')).toEqual([
      { version: 1 },
      { version: 5 },
    ]);
  });

  it('is not used when stale or unreadable: the migrations run and a warning says why', async () => {
    const renamed = counted().migrations.map((m) => ({ ...m, name: `${m.name} (old)` }));
    const stale = await imageOf(renamed);
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    for (const image of [stale, new Uint8Array([1, 2, 3])]) {
      const { migrations, runs } = counted();
      const db = await open({ dir: tempDir(), migrations, schemaImage: () => image });
      expect(runs).toEqual([1, 5]);
      expect(db.all('SELECT count(*) AS n FROM items')).toEqual([{ n: 0 }]);
    }
    expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([
      expect.stringContaining("it records migration 1 'items (old)' where 1 'items' runs"),
      expect.stringContaining('The schema image is not used'),
    ]);
  });

  it('is not used for a data directory that already holds a store, nor when there is none', async () => {
    const { migrations, runs } = counted();
    const dir = tempDir();
    const first = await open({ dir, migrations });
    await first.write((w) => w.run('INSERT INTO items (id, name) VALUES (1, ?)', ['old']));
    await first.close();
    const image = await imageOf(migrations);
    const again = await open({ dir, migrations, schemaImage: () => image });
    expect(again.all('SELECT name FROM items')).toEqual([{ name: 'old' }]);

    runs.length = 0;
    await open({ dir: tempDir(), migrations, schemaImage: () => null });
    expect(runs).toEqual([1, 5]);
  });
});

import {
  appendFileSync,
  existsSync,
  readdirSync,
  readlinkSync,
  statSync,
  symlinkSync,
  unlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { DurableDb, type Migration } from '../../../main/store/durable-db.ts';
import { journalFileName } from '../../../main/store/journal.ts';
import { SNAPSHOT_THREAD_KEPT_MAX_STORE_BYTES } from '../../../main/store/snapshot-thread.ts';
import { openedStores } from '../../helpers/opened-stores.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const migrations: Migration[] = [
  {
    version: 1,
    name: 'items',
    up: (w) => w.run('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)'),
  },
];

const open = openedStores();

function journalFiles(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.startsWith('journal-'));
}

/** Saves an image of db holding item 1 'start', then changes item 1 and adds item 2; returns the image's path. */
async function savedImageThenChanged(db: DurableDb): Promise<string> {
  await db.write((w) => w.run("INSERT INTO items (id, name) VALUES (1, 'start')"));
  const image = join(tempDir(), 'image.sqlite');
  await db.saveImage(image);
  await db.write((w) => {
    w.run("UPDATE items SET name = 'changed' WHERE id = 1");
    w.run("INSERT INTO items (id, name) VALUES (2, 'later')");
  });
  return image;
}

describe('DurableDb', () => {
  it('replays acknowledged writes from the journal after the process loses its memory', async () => {
    const dir = tempDir();
    const db = await open({ dir, migrations });
    await Promise.all(
      [1, 2, 3].map((i) =>
        db.write((w) => w.run('INSERT INTO items (id, name) VALUES (?, ?)', [i, `n${i}`])),
      ),
    );
    // no close(): as after a crash, only the journal holds the rows
    const reopened = await open({ dir, migrations });
    expect(reopened.all('SELECT id, name FROM items ORDER BY id')).toEqual([
      { id: 1, name: 'n1' },
      { id: 2, name: 'n2' },
      { id: 3, name: 'n3' },
    ]);
    expect(reopened.getStats().replayedRecords).toBeGreaterThan(0);
  });

  it('leaves no trace of a write whose callback throws, and keeps the rest of its group', async () => {
    const dir = tempDir();
    const db = await open({ dir, migrations });
    const ok = db.write((w) => w.run('INSERT INTO items (id, name) VALUES (1, ?)', ['a']));
    const bad = db.write((w) => {
      w.run('INSERT INTO items (id, name) VALUES (2, ?)', ['b']);
      w.run('INSERT INTO items (id, name) VALUES (3, ?)', ['a']); // unique violation
    });
    await expect(bad).rejects.toThrow(/UNIQUE/);
    await ok;
    expect(db.all('SELECT id FROM items')).toEqual([{ id: 1 }]);
    const reopened = await open({ dir, migrations });
    expect(reopened.all('SELECT id FROM items')).toEqual([{ id: 1 }]);
  });

  it('discards a torn tail record and keeps every intact one', async () => {
    const dir = tempDir();
    const db = await open({ dir, migrations });
    await db.write((w) => w.run('INSERT INTO items (id, name) VALUES (1, ?)', ['kept']));
    const [file] = journalFiles(dir);
    const path = join(dir, file!);
    const before = statSync(path).size;
    appendFileSync(path, Buffer.from([200, 0, 0, 0, 1, 2, 3, 4, 123, 34])); // header promising 200 bytes, then 2
    const reopened = await open({ dir, migrations });
    expect(reopened.all('SELECT name FROM items')).toEqual([{ name: 'kept' }]);
    expect(reopened.getStats().discardedTailBytes).toBe(10);
    expect(statSync(path).size).toBe(before);
    await reopened.write((w) => w.run('INSERT INTO items (id, name) VALUES (2, ?)', ['after']));
    const again = await open({ dir, migrations });
    expect(again.all('SELECT name FROM items ORDER BY id')).toEqual([{ name: 'kept' }, { name: 'after' }]);
  });

  it('replays a journal of over a megabyte (on its replay thread) after a crash, cutting its torn tail', async () => {
    const dir = tempDir();
    const db = await open({ dir, migrations });
    const rows = 2_500;
    await Promise.all(
      Array.from({ length: rows }, (_, i) =>
        db.write((w) => w.run('INSERT INTO items (id, name) VALUES (?, ?)', [i, `${i}:${'x'.repeat(500)}`])),
      ),
    );
    const [file] = journalFiles(dir);
    const path = join(dir, file!);
    const intact = statSync(path).size;
    expect(intact).toBeGreaterThan(1024 * 1024);
    appendFileSync(path, Buffer.from([200, 0, 0, 0, 1, 2, 3, 4, 123, 34]));
    // no close(): as after kill -9, only the journal holds the rows
    const reopened = await open({ dir, migrations });
    expect(reopened.get('SELECT COUNT(*) AS n, SUM(id) AS s FROM items')).toEqual({
      n: rows,
      s: (rows * (rows - 1)) / 2,
    });
    expect(reopened.getStats().discardedTailBytes).toBe(10);
    expect(statSync(path).size).toBe(intact);
    await reopened.write((w) => w.run('INSERT INTO items (id, name) VALUES (?, ?)', [rows, 'after']));
    const again = await open({ dir, migrations });
    expect(again.get('SELECT name FROM items WHERE id = ?', [rows])).toEqual({ name: 'after' });
    expect(again.get('SELECT COUNT(*) AS n FROM items')).toEqual({ n: rows + 1 });
  });

  it('snapshots on close, drops covered journals and reopens from the snapshot', async () => {
    const dir = tempDir();
    const db = await open({ dir, migrations });
    await db.write((w) => w.run('INSERT INTO items (id, name) VALUES (1, ?)', ['x']));
    await db.close();
    expect(readdirSync(dir)).toContain('store.sqlite');
    const reopened = await open({ dir, migrations });
    expect(reopened.getStats().replayedRecords).toBe(0);
    expect(reopened.all('SELECT name FROM items')).toEqual([{ name: 'x' }]);
    expect(journalFiles(dir)).toHaveLength(1);
  });

  it('takes snapshots under continuous writes without losing any of them', async () => {
    const dir = tempDir();
    const db = await open({ dir, migrations, snapshotThresholdBytes: 2_000 });
    const writes: Promise<number>[] = [];
    for (let i = 1; i <= 500; i++) {
      writes.push(db.write((w) => w.run('INSERT INTO items (id, name) VALUES (?, ?)', [i, `item-${i}`])));
      if (i % 50 === 0) await writes.at(-1);
    }
    await Promise.all(writes);
    await db.idle();
    expect(db.getStats().snapshots).toBeGreaterThan(0);
    await db.close();
    const reopened = await open({ dir, migrations });
    expect(reopened.get('SELECT COUNT(*) AS n FROM items')).toEqual({ n: 500 });
  });

  it('writes its snapshots on one worker thread, started at the first and stopped on close', async () => {
    const dir = tempDir();
    const db = await open({ dir, migrations, snapshotThresholdBytes: 1_000_000 });
    expect(db.snapshotThread.running).toBe(false);
    for (let round = 1; round <= 3; round++) {
      await db.write((w) => w.run('INSERT INTO items (id, name) VALUES (?, ?)', [round, `item-${round}`]));
      await db.snapshot();
      expect(db.getStats().snapshots).toBe(round);
    }
    expect(db.snapshotThread.started).toBe(1);
    expect(db.snapshotThread.running).toBe(true);
    await db.close();
    expect(db.snapshotThread.running).toBe(false);
    const reopened = await open({ dir, migrations });
    expect(reopened.getStats().replayedRecords).toBe(0);
    expect(reopened.get('SELECT COUNT(*) AS n FROM items')).toEqual({ n: 3 });
  });

  it("builds a snapshot from the replacing image, not from the snapshot thread's copy of the old database", async () => {
    const dir = tempDir();
    const db = await open({ dir, migrations, snapshotThresholdBytes: 1_000_000 });
    const image = await savedImageThenChanged(db);
    await db.snapshot();
    await db.replaceDatabase(image);
    await db.write((w) => w.run("INSERT INTO items (id, name) VALUES (3, 'after')"));
    await db.snapshot();
    expect(db.snapshotThread.started).toBe(1);
    // no close(): as after a crash, the last snapshot is the database
    const reopened = await open({ dir, migrations });
    expect(reopened.getStats().replayedRecords).toBe(0);
    expect(reopened.all('SELECT id, name FROM items ORDER BY id')).toEqual([
      { id: 1, name: 'start' },
      { id: 3, name: 'after' },
    ]);
  });

  it("ends its snapshot worker after each snapshot of a big store (the worker's copies of it would stay)", async () => {
    const dir = tempDir();
    const db = await open({ dir, migrations, snapshotThresholdBytes: Number.MAX_SAFE_INTEGER });
    const big = 'x'.repeat(4 * 2 ** 20);
    for (let id = 1; id <= 9; id++)
      await db.write((w) => w.run('INSERT INTO items (id, name) VALUES (?, ?)', [id, `${id}${big}`]));
    expect(db.sizeBytes().allocatedBytes).toBeGreaterThan(SNAPSHOT_THREAD_KEPT_MAX_STORE_BYTES);
    await db.snapshot();
    await vi.waitFor(() => expect(db.snapshotThread.running).toBe(false));
    await db.write((w) => w.run('INSERT INTO items (id, name) VALUES (10, ?)', ['ten']));
    await db.snapshot();
    expect(db.snapshotThread.started).toBe(2);
    await db.close();
    const reopened = await open({ dir, migrations });
    expect(reopened.getStats().replayedRecords).toBe(0);
    expect(reopened.get('SELECT COUNT(*) AS n FROM items')).toEqual({ n: 10 });
  });

  it('starts a new snapshot worker when the last one died, and loses nothing', async () => {
    const dir = tempDir();
    const db = await open({ dir, migrations, snapshotThresholdBytes: 1_000_000 });
    await db.write((w) => w.run('INSERT INTO items (id, name) VALUES (1, ?)', ['one']));
    await db.snapshot();
    // the worker thread dies between snapshots (as after an out-of-memory abort in it)
    await (db.snapshotThread as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    expect(db.snapshotThread.running).toBe(false);
    await db.write((w) => w.run('INSERT INTO items (id, name) VALUES (2, ?)', ['two']));
    await db.snapshot();
    expect(db.snapshotThread.started).toBe(2);
    await db.close();
    const reopened = await open({ dir, migrations });
    expect(reopened.getStats().replayedRecords).toBe(0);
    expect(reopened.all('SELECT name FROM items ORDER BY id')).toEqual([{ name: 'one' }, { name: 'two' }]);
  });

  // /dev/full (every write fails with ENOSPC) is Linux's
  it.skipIf(!existsSync('/dev/full'))(
    'refuses every write once a journal write fails, and a restart gives back exactly what was acknowledged',
    async () => {
      const dir = tempDir();
      const db = await open({ dir, migrations });
      await db.write((w) => w.run('INSERT INTO items (id, name) VALUES (1, ?)', ['acknowledged']));
      // the next journal file is a full disk: every write to it fails with ENOSPC
      const fullDisk = join(dir, journalFileName(db.getStats().seq + 1));
      symlinkSync('/dev/full', fullDisk);
      await db.snapshot();
      const refused = db.write((w) => w.run('INSERT INTO items (id, name) VALUES (2, ?)', ['refused']));
      await expect(refused).rejects.toThrow(/Journal write failed.*ENOSPC/);
      await expect(
        db.write((w) => w.run('INSERT INTO items (id, name) VALUES (3, ?)', ['after'])),
      ).rejects.toThrow(/stopped accepting writes/);
      // no snapshot of a memory that holds the refused row, and the files are released all the same
      await expect(db.close()).rejects.toThrow(/Journal write failed/);
      const openFiles = readdirSync('/proc/self/fd').map((fd) => {
        try {
          return readlinkSync(join('/proc/self/fd', fd));
        } catch {
          return ''; // closed meanwhile
        }
      });
      expect(openFiles).not.toContain('/dev/full');
      unlinkSync(fullDisk); // the disk is fixed
      const reopened = await open({ dir, migrations });
      expect(reopened.all('SELECT id, name FROM items ORDER BY id')).toEqual([
        { id: 1, name: 'acknowledged' },
      ]);
      await reopened.write((w) => w.run('INSERT INTO items (id, name) VALUES (2, ?)', ['retried']));
      expect(reopened.all('SELECT name FROM items ORDER BY id')).toEqual([
        { name: 'acknowledged' },
        { name: 'retried' },
      ]);
    },
  );

  it('keeps the migrations before a failing one, runs none after it, and resumes at it on the next open', async () => {
    const dir = tempDir();
    const failing: Migration[] = [
      ...migrations,
      { version: 2, name: 'broken', up: (w) => w.run('ALTER TABLE nowhere ADD COLUMN x TEXT') },
      { version: 3, name: 'after', up: (w) => w.run('CREATE TABLE later (id INTEGER)') },
    ];
    await expect(DurableDb.open({ dir, migrations: failing })).rejects.toThrow(/nowhere/);
    const fixed: Migration[] = [
      ...migrations,
      { version: 2, name: 'fixed', up: (w) => w.run('ALTER TABLE items ADD COLUMN x TEXT') },
      failing[2]!,
    ];
    const db = await open({ dir, migrations: fixed });
    expect(db.all('SELECT version, name FROM _migrations ORDER BY version')).toMatchObject([
      { version: 1, name: 'items' },
      { version: 2, name: 'fixed' },
      { version: 3, name: 'after' },
    ]);
  });

  it('runs each migration once and records it', async () => {
    const dir = tempDir();
    await (await open({ dir, migrations })).close();
    const more: Migration[] = [
      ...migrations,
      { version: 2, name: 'extra', up: (w) => w.run('ALTER TABLE items ADD COLUMN extra TEXT') },
    ];
    const db = await open({ dir, migrations: more });
    expect(db.all('SELECT version, name FROM _migrations ORDER BY version')).toMatchObject([
      { version: 1, name: 'items' },
      { version: 2, name: 'extra' },
    ]);
  });
});

describe('DurableDb replay', () => {
  it('replays a record whose statements use a table created earlier in the same record', async () => {
    const dir = tempDir();
    const db = await open({ dir, migrations: [] });
    await Promise.all([
      db.write((w) => w.run('CREATE TABLE late (v TEXT)')),
      db.write((w) => w.run('INSERT INTO late (v) VALUES (?)', ['same group'])),
    ]);
    const reopened = await open({ dir, migrations: [] });
    expect(reopened.all('SELECT v FROM late')).toEqual([{ v: 'same group' }]);
  });

  it('replays long runs of single-row inserts (applied in bulk) to exactly the rows the store held', async () => {
    const dir = tempDir();
    const wide = Array.from({ length: 40 }, (_, c) => `c${c}`);
    const db = await open({ dir, migrations: [] });
    await db.write((w) => {
      w.run('CREATE TABLE kv (k INTEGER, ts INTEGER, v, PRIMARY KEY (k, ts))');
      w.run('CREATE TABLE latest (k INTEGER PRIMARY KEY, ts INTEGER, v)');
      w.run(`CREATE TRIGGER kv_latest AFTER INSERT ON kv BEGIN
               INSERT INTO latest (k, ts, v) VALUES (NEW.k, NEW.ts, NEW.v)
               ON CONFLICT (k) DO UPDATE SET ts = excluded.ts, v = excluded.v WHERE excluded.ts >= latest.ts;
             END`);
      w.run('CREATE TABLE seen (name TEXT PRIMARY KEY, n INTEGER)');
      w.run(`CREATE TABLE wide (${wide.join(', ')})`);
    });
    const writes: Promise<void>[] = [];
    for (let g = 0; g < 6; g++) {
      writes.push(
        db.write((w) => {
          // 150 rows of one statement (more than one bulk statement), keys repeating within the run, out
          // of ts order, so that which row wins depends on the order the rows are applied in
          for (let i = 0; i < 150; i++) {
            const v = i % 3 === 0 ? `s${g}-${i}` : i % 3 === 1 ? g * 1000 + i + 0.5 : null;
            w.run('INSERT OR REPLACE INTO kv (k, ts, v) VALUES (?, ?, ?)', [i % 7, (i * 37) % 50, v]);
          }
          w.run('INSERT OR IGNORE INTO seen (name, n) VALUES (?, ?)', ['first', g]);
          for (let i = 0; i < 30; i++)
            w.run('INSERT OR IGNORE INTO seen (name, n) VALUES (?, ?)', [`n${i % 9}`, g * 100 + i]);
          for (let i = 0; i < 50; i++)
            w.run(
              `INSERT INTO wide (${wide.join(', ')}) VALUES (${wide.map(() => '?').join(', ')})`,
              wide.map((_, c) => g * 10_000 + i * 100 + c),
            );
          w.run('UPDATE seen SET n = n + 1 WHERE name = ?', ['first']);
        }),
      );
    }
    await Promise.all(writes);
    const state = (d: DurableDb) => ({
      kv: d.all('SELECT k, ts, v, typeof(v) AS type FROM kv ORDER BY k, ts'),
      latest: d.all('SELECT k, ts, v FROM latest ORDER BY k'),
      seen: d.all('SELECT name, n FROM seen ORDER BY name'),
      wide: d.all('SELECT rowid, * FROM wide ORDER BY rowid'),
    });
    const before = state(db);
    expect(before.wide).toHaveLength(300);
    // no close(): as after a crash, only the journal holds the rows
    const reopened = await open({ dir, migrations: [] });
    expect(reopened.getStats().replayedRecords).toBeGreaterThan(0);
    expect(state(reopened)).toEqual(before);
  });
});

describe('DurableDb and the journal', () => {
  it('keeps a non-finite telemetry value across a restart instead of turning it into NULL', async () => {
    const { encodeKv } = await import('../../../main/platform/kv-value.ts');
    const dir = tempDir();
    const db = await open({ dir, migrations: [] });
    const { t, v } = encodeKv(Number.POSITIVE_INFINITY);
    await db.write((w) => {
      w.run('CREATE TABLE kv (t TEXT, v)');
      w.run('INSERT INTO kv (t, v) VALUES (?, ?)', [t, v]);
    });
    const reopened = await open({ dir, migrations: [] });
    expect(reopened.all('SELECT t, v FROM kv')).toEqual([{ t: 's', v: 'Infinity' }]);
  });
});

describe('DurableDb replication', () => {
  it('seeds a replica that stays equal to the store through applyRecord', async () => {
    const { applyRecord } = await import('../../../main/store/durable-db.ts');
    const { loadSqlJs } = await import('../../../main/store/sqljs.ts');
    const db = await open({ dir: tempDir(), migrations });
    await db.write((w) => w.run('INSERT INTO items (id, name) VALUES (1, ?)', ['before']));
    const pending = db.write((w) => w.run('INSERT INTO items (id, name) VALUES (2, ?)', ['in flight']));
    const records: Parameters<typeof applyRecord>[1][] = [];
    const { bytes, stop } = await db.replicate((r) => records.push(r));
    await pending;
    await db.write((w) => w.run('INSERT INTO items (id, name) VALUES (3, ?)', ['after']));
    const SQL = await loadSqlJs();
    const replica = new SQL.Database(bytes);
    for (const r of records) applyRecord(replica, r);
    expect(replica.exec('SELECT id, name FROM items ORDER BY id')[0]!.values).toEqual([
      [1, 'before'],
      [2, 'in flight'],
      [3, 'after'],
    ]);
    stop();
    await db.write((w) => w.run('INSERT INTO items (id, name) VALUES (4, ?)', ['unseen']));
    expect(records).toHaveLength(1);
  });

  it('replaces the whole database with a saved image, and the replacement survives a restart', async () => {
    const dir = tempDir();
    const db = await open({ dir, migrations });
    const image = await savedImageThenChanged(db);
    await db.replaceDatabase(image);
    expect(db.all('SELECT id, name FROM items ORDER BY id')).toEqual([{ id: 1, name: 'start' }]);
    await db.write((w) => w.run("INSERT INTO items (id, name) VALUES (3, 'after')"));
    expect(journalFiles(dir)).toHaveLength(1);
    // no close(): as after a crash, the image's snapshot and the new journal are all there is
    const reopened = await open({ dir, migrations });
    expect(reopened.all('SELECT id, name FROM items ORDER BY id')).toEqual([
      { id: 1, name: 'start' },
      { id: 3, name: 'after' },
    ]);
  });
});

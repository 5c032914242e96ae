import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { applyRecord, DurableDb, type Migration } from '../../../main/store/durable-db.ts';
import type { JournalRecord } from '../../../main/store/journal.ts';
import { openReplica } from '../../../main/store/replica-seed.ts';
import { loadSqlJs } from '../../../main/store/sqljs.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const migrations: Migration[] = [
  {
    version: 1,
    name: 'items',
    up: (w) => w.run('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)'),
  },
];

const opened: DurableDb[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
});

async function openStore(): Promise<DurableDb> {
  const db = await DurableDb.open({ dir: tempDir(), migrations });
  opened.push(db);
  return db;
}

const insert = (db: DurableDb, id: number) =>
  db.write((w) => w.run('INSERT INTO items (id, name) VALUES (?, ?)', [id, `item ${id}`]));

describe('a read replica seeded from the store files', () => {
  it('equals the store when snapshots replace its files before it is built', async () => {
    const db = await openStore();
    for (let id = 1; id <= 20; id++) await insert(db, id);
    await db.snapshot();
    await insert(db, 21);
    const pending = insert(db, 22);
    const records: JournalRecord[] = [];
    const { seed, stop, release } = await db.replicateFromFiles((r) => records.push(r));
    await pending;
    // Two snapshots while the replica has not read its files yet: the journal files stay until release.
    await insert(db, 23);
    await db.snapshot();
    await insert(db, 24);
    await db.snapshot();
    expect(seed.files.every((file) => existsSync(file))).toBe(true);

    const SQL = await loadSqlJs();
    const replica = openReplica(SQL, seed);
    release();
    expect(seed.files.some((file) => existsSync(file))).toBe(false);
    let seq = replica.seq;
    for (const record of records) {
      if (record.seq <= seq) continue;
      applyRecord(replica.db, record);
      seq = record.seq;
    }
    stop();
    await insert(db, 25);
    const rows = replica.db.exec('SELECT id FROM items ORDER BY id')[0]!.values.map((r) => r[0]);
    expect(rows).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    expect(records.at(-1)!.seq).toBe(seq);
    replica.db.close();
  });

  it('builds from a snapshot newer than its seed, skipping the records that snapshot holds', async () => {
    const db = await openStore();
    await insert(db, 1);
    const records: JournalRecord[] = [];
    const { seed, release } = await db.replicateFromFiles((r) => records.push(r));
    await insert(db, 2);
    await db.snapshot();
    const SQL = await loadSqlJs();
    const replica = openReplica(SQL, seed);
    release();
    expect(replica.seq).toBeGreaterThan(seed.seq);
    expect(records.every((r) => r.seq <= replica.seq)).toBe(true);
    expect(replica.db.exec('SELECT id FROM items ORDER BY id')[0]!.values).toEqual([[1], [2]]);
    replica.db.close();
  });
});

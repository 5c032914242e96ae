import { afterEach, describe, expect, it } from 'vitest';
import { TelemetryRepository } from '../../../main/platform/telemetry-repository.ts';
import { PACKED_SCHEMA } from '../../../main/platform/telemetry-packs.ts';
import { DurableDb, type Migration } from '../../../main/store/durable-db.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const migrations: Migration[] = [
  {
    version: 1,
    name: 'telemetry',
    up: (w) => {
      w.run(`CREATE TABLE ts_kv (entity_num INTEGER NOT NULL, key_id INTEGER NOT NULL, ts INTEGER NOT NULL,
        t TEXT NOT NULL, v, PRIMARY KEY (entity_num, key_id, ts)) WITHOUT ROWID`);
      w.run('CREATE TABLE ts_key (key_id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE)');
      for (const sql of PACKED_SCHEMA) w.run(sql);
    },
  },
];

const opened: DurableDb[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
});

async function openStore(dir: string): Promise<DurableDb> {
  const db = await DurableDb.open({ dir, migrations });
  opened.push(db);
  return db;
}

const count = (db: DurableDb, where = '1') =>
  Number(db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ts_kv WHERE ${where}`)!.n);

describe('telemetry retention', () => {
  it('drops every point before the cutoff in bounded writes, keeps the rest, and a restart agrees', async () => {
    const dir = tempDir();
    const db = await openStore(dir);
    // 3 devices x 2 keys; device 2's key 1 has 250 points, the others 40; ts 0..n-1
    await db.write((w) => {
      for (let entity = 1; entity <= 3; entity++)
        for (let key = 1; key <= 2; key++) {
          const points = entity === 2 && key === 1 ? 250 : 40;
          for (let ts = 0; ts < points; ts++)
            w.run("INSERT INTO ts_kv (entity_num, key_id, ts, t, v) VALUES (?, ?, ?, 'l', ?)", [
              entity,
              key,
              ts,
              ts,
            ]);
        }
    });
    const before = count(db);
    const expectedGone = count(db, 'ts < 30');
    const groups = db.getStats().groupsCommitted;
    const repo = new TelemetryRepository(db);
    const gone = await repo.purgeOlderThan(30, 25);
    expect(gone).toBe(expectedGone);
    expect(count(db, 'ts < 30')).toBe(0);
    expect(count(db)).toBe(before - expectedGone);
    // 25 points or series per write: the 200 points before 30 took at least 8 writes
    expect(db.getStats().groupsCommitted - groups).toBeGreaterThanOrEqual(8);
    expect(await repo.purgeOlderThan(30, 25)).toBe(0);

    await db.close();
    opened.splice(0);
    const reopened = await openStore(dir);
    expect(count(reopened)).toBe(before - expectedGone);
    expect(count(reopened, 'ts < 30')).toBe(0);
  });
});

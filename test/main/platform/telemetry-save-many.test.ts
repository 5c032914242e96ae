/**
 * TelemetryRepository.saveMany (calculated fields' results of a turn, several datapoints per statement):
 * it stores exactly what save() stores, history and latest values alike, and what it stored is replayed
 * from the journal when the process loses its memory before any snapshot.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { migrations } from '../../../main/platform/migrations.ts';
import { TelemetryRepository, type TsEntry } from '../../../main/platform/telemetry-repository.ts';
import { DurableDb } from '../../../main/store/durable-db.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const opened: DurableDb[] = [];
async function open(dir: string): Promise<DurableDb> {
  const db = await DurableDb.open({ dir, migrations });
  opened.push(db);
  return db;
}
afterEach(async () => {
  for (const db of opened.splice(0).reverse()) await db.close();
});

/** 3 entities x 30 keys x 2 timestamps: 180 datapoints (more than one statement), an older point last. */
function items(): { num: number; entries: TsEntry[] }[] {
  return [1, 2, 3].map((num) => {
    const values = (ts: number) =>
      Object.fromEntries(
        Array.from({ length: 30 }, (_, k) => [`k${k}`, k % 3 === 0 ? `s${num}-${ts}` : num * ts + k]),
      );
    return {
      num,
      entries: [
        { ts: 2000, values: values(2000) },
        { ts: 1000, values: values(1000) },
      ],
    };
  });
}

function contents(db: DurableDb) {
  return {
    history: db.all('SELECT entity_num, key_id, ts, t, v FROM ts_kv ORDER BY entity_num, key_id, ts'),
    latest: db.all('SELECT entity_num, key_id, ts, t, v FROM ts_kv_latest ORDER BY entity_num, key_id'),
  };
}

describe('TelemetryRepository.saveMany', () => {
  it('stores the same history and latest values as save(), and they survive a crash', async () => {
    const one = await open(tempDir());
    const oneRepo = new TelemetryRepository(one);
    await one.write((w) => {
      for (const { num, entries } of items()) oneRepo.save(w, num, entries);
    });

    const dir = tempDir();
    const many = await open(dir);
    const count = await many.write((w) => new TelemetryRepository(many).saveMany(w, items()));
    expect(count).toBe(180);
    const expected = contents(one);
    expect(expected.history).toHaveLength(180);
    expect(contents(many)).toEqual(expected);
    // the older point written last does not replace a newer latest value
    expect(new Set(expected.latest.map((r) => r.ts))).toEqual(new Set([2000]));

    // no close(): as after kill -9, only the journal holds the rows
    const reopened = await open(dir);
    expect(contents(reopened)).toEqual(expected);
    expect(new TelemetryRepository(reopened).latest(2).get('k1')).toMatchObject({ ts: 2000, value: 4001 });
  });
});

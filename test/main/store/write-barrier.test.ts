import { describe, expect, it } from 'vitest';
import { DurableDb, type Migration } from '../../../main/store/durable-db.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const migrations: Migration[] = [
  {
    version: 1,
    name: 'items',
    up: (w) => w.run('CREATE TABLE items (id INTEGER PRIMARY KEY, who TEXT NOT NULL)'),
  },
];

const names = (db: DurableDb) => db.all<{ id: number; who: string }>('SELECT id, who FROM items ORDER BY id');

describe('DurableDb.exclusive', () => {
  it('acknowledges writes made between its turns only with it, and all of them survive a reopen', async () => {
    const dir = tempDir();
    const db = await DurableDb.open({ dir, migrations });
    const events: string[] = [];
    let other: Promise<void> | undefined;
    const imported = db.exclusive(async (w, turn) => {
      for (let i = 1; i <= 3_000; i++) {
        w.run('INSERT INTO items (id, who) VALUES (?, ?)', [i, 'import']);
        if (i === 1_000) {
          // another writer, between the import's turns: it runs at once (and sees the import so far)
          setImmediate(() => {
            other = db
              .write((o) => {
                events.push(`other saw ${o.get<{ n: number }>('SELECT COUNT(*) AS n FROM items')!.n}`);
                o.run('INSERT INTO items (id, who) VALUES (?, ?)', [100_000, 'other']);
              })
              .then(() => void events.push('other acknowledged'));
          });
          await turn();
          await turn();
        }
      }
      events.push('import ends');
      return 'done';
    });
    const groups = db.getStats().groupsCommitted;
    await expect(imported).resolves.toBe('done');
    await other;
    // the other write is acknowledged only once the import ended, in the same journal record
    expect(events).toEqual(['other saw 1000', 'import ends', 'other acknowledged']);
    expect(db.getStats().groupsCommitted).toBe(groups + 1);
    await db.close();
    const again = await DurableDb.open({ dir, migrations });
    expect(names(again)).toHaveLength(3_001);
    await again.close();
  });

  it('keeps nothing of a failed import and everything others wrote meanwhile, in memory and on disk', async () => {
    const dir = tempDir();
    const db = await DurableDb.open({ dir, migrations });
    await db.write((w) => w.run('INSERT INTO items (id, who) VALUES (1, ?)', ['before']));
    const others: Promise<number>[] = [];
    const failed = db.exclusive(async (w, turn) => {
      for (let i = 10; i < 2_010; i++) {
        w.run('INSERT INTO items (id, who) VALUES (?, ?)', [i, 'import']);
        if (i % 500 === 0) {
          setImmediate(() =>
            others.push(db.write((o) => o.run('INSERT INTO items (id, who) VALUES (?, ?)', [-i, 'other']))),
          );
          await turn();
        }
      }
      w.run('INSERT INTO items (id, who) VALUES (1, ?)', ['clash']); // a constraint the rows break
    });
    await expect(failed).rejects.toThrow(/UNIQUE constraint failed/);
    expect(await Promise.all(others)).toEqual([1, 1, 1, 1]);
    const expected = [
      { id: -2000, who: 'other' },
      { id: -1500, who: 'other' },
      { id: -1000, who: 'other' },
      { id: -500, who: 'other' },
      { id: 1, who: 'before' },
    ];
    expect(names(db)).toEqual(expected);
    await db.write((w) => w.run('INSERT INTO items (id, who) VALUES (2, ?)', ['after']));
    await db.flush();
    const again = await DurableDb.open({ dir, migrations });
    expect(names(again)).toEqual([...expected, { id: 2, who: 'after' }]);
    await again.close();
    await db.close();
  });

  it('runs one long write at a time: a second waits for the first', async () => {
    const db = await DurableDb.open({ dir: tempDir(), migrations });
    const order: string[] = [];
    const first = db.exclusive(async (w, turn) => {
      order.push('first starts');
      await turn();
      w.run("INSERT INTO items (id, who) VALUES (1, 'first')");
      order.push('first ends');
    });
    const second = db.exclusive(async (w) => {
      order.push('second starts');
      w.run("INSERT INTO items (id, who) VALUES (2, 'second')");
    });
    await Promise.all([first, second]);
    expect(order).toEqual(['first starts', 'first ends', 'second starts']);
    await db.close();
  });
});

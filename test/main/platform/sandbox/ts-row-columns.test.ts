import { describe, expect, it } from 'vitest';
import type { SandboxTsRow } from '../../../../shared/schemas/sandbox.ts';
import { TsRowColumns } from '../../../../main/platform/sandbox/ts-row-columns.ts';

describe('TsRowColumns', () => {
  it('gives back every row as it was pushed, in order, past several growths', () => {
    const rows: SandboxTsRow[] = [];
    for (let i = 0; i < 5000; i++) {
      const ts = 1_700_000_000_000 + i * 60_000;
      rows.push([`device-${i % 7}`, 'temperature', ts, 'n', 20 + i / 10]);
      if (i % 100 === 0) rows.push([`device-${i % 7}`, 'state', ts, 's', `state ${i}`]);
      if (i % 333 === 0) rows.push([`device-${i % 7}`, 'empty', ts, 'j', null]);
    }
    rows.push(['device-0', 'big', Number.MAX_SAFE_INTEGER, 'n', -0]);
    rows.push(['device-0', 'text', 1, 's', '42']);
    const columns = new TsRowColumns();
    for (const r of rows) columns.push(r);

    expect(columns.length).toBe(rows.length);
    const back = [...columns];
    expect(back).toEqual(rows);
    expect(Object.is(back.at(-2)![4], -0)).toBe(true);
    expect(typeof back.at(-1)![4]).toBe('string');
  });

  it('is empty when nothing was pushed', () => {
    const columns = new TsRowColumns();
    expect(columns.length).toBe(0);
    expect([...columns]).toEqual([]);
  });
});

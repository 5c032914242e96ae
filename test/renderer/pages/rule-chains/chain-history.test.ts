import { describe, expect, it } from 'vitest';
import {
  HISTORY_LIMIT,
  MERGE_MS,
  record,
  redo,
  startHistory,
  undo,
} from '../../../../renderer/src/pages/rule-chains/chain-history.ts';

describe('undo / redo history', () => {
  it('undoes and redoes edits in order; a new edit drops what could be redone', () => {
    let h = startHistory('a');
    h = record(h, 'b', null, 0);
    h = record(h, 'c', null, 10);
    expect((h = undo(h)).present).toBe('b');
    expect((h = undo(h)).present).toBe('a');
    expect(undo(h)).toBe(h);
    expect((h = redo(h)).present).toBe('b');
    h = record(h, 'x', null, 20);
    expect(h.future).toEqual([]);
    expect(redo(h)).toBe(h);
    expect(undo(h).present).toBe('b');
  });

  it('a run of edits of one kind (typing, dragging) is one step; a pause or another kind starts a new one', () => {
    let h = startHistory('');
    for (const [i, text] of ['E', 'Ed', 'Edg', 'Edge'].entries()) h = record(h, text, 'name-1', i * 100);
    expect(h.past).toEqual(['']);
    h = record(h, 'Edge 2', 'name-1', 300 + MERGE_MS + 1);
    expect(h.past).toEqual(['', 'Edge']);
    h = record(h, 'moved', 'move-1', 300 + MERGE_MS + 2);
    expect(h.past).toEqual(['', 'Edge', 'Edge 2']);
  });

  it('an undo ends a run: the next edit of the same kind is a step of its own', () => {
    let h = startHistory('');
    h = record(h, 'A', 'name-1', 0);
    h = record(h, 'AB', 'name-1', 10);
    h = undo(h);
    expect(h.present).toBe('');
    h = record(h, 'X', 'name-1', 20);
    h = record(h, 'XY', 'name-1', 30);
    expect(undo(h).present).toBe('');
  });

  it('an edit that changes nothing is no step', () => {
    const h = record(startHistory('a'), 'b', null, 0);
    expect(record(h, 'b', null, 5)).toBe(h);
  });

  it(`keeps the last ${HISTORY_LIMIT} steps`, () => {
    let h = startHistory(0);
    for (let i = 1; i <= HISTORY_LIMIT + 20; i++) h = record(h, i, null, i);
    expect(h.past).toHaveLength(HISTORY_LIMIT);
    expect(h.past[0]).toBe(20);
  });
});

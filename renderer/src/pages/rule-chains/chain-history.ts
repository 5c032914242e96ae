/**
 * Undo / redo of the chain editor: every edit pushes the state before it; edits of one kind that follow
 * each other closely (typing a name, dragging a node) are one step.
 */
import { useCallback, useState } from 'react';

/** Steps kept; older ones are dropped. */
export const HISTORY_LIMIT = 100;
/** Edits of the same kind within this many ms of the last one merge into one step. */
export const MERGE_MS = 1_000;

export interface History<T> {
  past: T[];
  present: T;
  future: T[];
  /** the kind of the last edit, and when it was made (merging) */
  lastKey: string | null;
  lastAt: number;
}

export function startHistory<T>(present: T): History<T> {
  return { past: [], present, future: [], lastKey: null, lastAt: 0 };
}

/** An edit: `next` becomes the present; `key` names its kind so that a run of them is one step. */
export function record<T>(h: History<T>, next: T, key: string | null, now: number): History<T> {
  if (next === h.present) return h;
  const merge = key !== null && key === h.lastKey && now - h.lastAt <= MERGE_MS;
  return {
    past: merge ? h.past : [...h.past, h.present].slice(-HISTORY_LIMIT),
    present: next,
    future: [],
    lastKey: key,
    lastAt: now,
  };
}

export function undo<T>(h: History<T>): History<T> {
  const previous = h.past.at(-1);
  if (previous === undefined) return h;
  return {
    past: h.past.slice(0, -1),
    present: previous,
    future: [h.present, ...h.future],
    lastKey: null,
    lastAt: 0,
  };
}

export function redo<T>(h: History<T>): History<T> {
  const next = h.future[0];
  if (next === undefined) return h;
  return {
    past: [...h.past, h.present],
    present: next,
    future: h.future.slice(1),
    lastKey: null,
    lastAt: 0,
  };
}

/** The editor's state with its history: edit, undo, redo, and replace (a load that is not an edit). */
export function useHistory<T>(initial: T) {
  const [h, setH] = useState(() => startHistory(initial));
  const edit = useCallback(
    (next: T | ((present: T) => T), key: string | null = null) =>
      setH((cur) =>
        record(cur, typeof next === 'function' ? (next as (p: T) => T)(cur.present) : next, key, Date.now()),
      ),
    [],
  );
  return {
    present: h.present,
    canUndo: h.past.length > 0,
    canRedo: h.future.length > 0,
    edit,
    undo: useCallback(() => setH(undo), []),
    redo: useCallback(() => setH(redo), []),
    /** replaces the present as a new step (a save's result, a discard) */
    reset: useCallback((value: T) => setH((cur) => record(cur, value, null, Date.now())), []),
  };
}

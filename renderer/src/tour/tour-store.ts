/**
 * The guided tours' state, in localStorage so a tour survives a reload and can be resumed later: the
 * tour on screen (its sandbox, steps and the ids its paths name), and each sandbox's saved position.
 */
import { useSyncExternalStore } from 'react';
import type { TourStep } from '../../../shared/schemas/shipped-sandbox.ts';

export type { TourStep };

export interface ActiveTour {
  sandboxId: string;
  title: string;
  steps: TourStep[];
  /** ${name} in a step's path expands to vars[name] */
  vars: Record<string, string>;
  index: number;
}

export interface TourProgress {
  index: number;
  done: boolean;
}

interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}
const storage = () => (globalThis as { localStorage?: KeyValueStore }).localStorage;

const ACTIVE = 'sandboard.tour.active';
const progressKey = (sandboxId: string) => `sandboard.tour.progress.${sandboxId}`;
const listeners = new Set<() => void>();

function read<T>(key: string): T | null {
  try {
    const raw = storage()?.getItem(key);
    return raw ? (JSON.parse(raw) as T) : null;
  } catch {
    return null;
  }
}

function write(key: string, value: unknown): void {
  try {
    if (value === null) storage()?.removeItem(key);
    else storage()?.setItem(key, JSON.stringify(value));
  } catch {
    // storage full or off: the tour still runs, it is just not remembered
  }
  snapshot = null;
  for (const l of listeners) l();
}

let snapshot: { active: ActiveTour | null; version: number } | null = null;
let version = 0;

function current(): { active: ActiveTour | null; version: number } {
  snapshot ??= { active: read<ActiveTour>(ACTIVE), version: ++version };
  return snapshot;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The tour on screen, re-rendering when it moves; version changes with any saved progress. */
export function useTourState(): { active: ActiveTour | null; version: number } {
  return useSyncExternalStore(subscribe, current);
}

export function tourProgress(sandboxId: string): TourProgress | null {
  return read<TourProgress>(progressKey(sandboxId));
}

/** Starts a sandbox's tour where it was left (or from the first step when it was finished). */
export function startTour(tour: Omit<ActiveTour, 'index'>, restart = false): void {
  const saved = tourProgress(tour.sandboxId);
  const index = !restart && saved && !saved.done ? Math.min(saved.index, tour.steps.length - 1) : 0;
  write(progressKey(tour.sandboxId), { index, done: false });
  write(ACTIVE, { ...tour, index });
}

export function goToStep(index: number): void {
  const active = current().active;
  if (!active || index < 0 || index >= active.steps.length) return;
  write(progressKey(active.sandboxId), { index, done: false });
  write(ACTIVE, { ...active, index });
}

/** Closes the tour: finished (the last step's Done), or skipped (resumable where it was). */
export function closeTour(finished: boolean): void {
  const active = current().active;
  if (!active) return;
  write(progressKey(active.sandboxId), { index: active.index, done: finished });
  write(ACTIVE, null);
}

/** A step's path with the tour's ids filled in. */
export function stepPath(active: ActiveTour, step: TourStep): string {
  return step.path.replace(/\$\{(\w+)\}/g, (_, name: string) => encodeURIComponent(active.vars[name] ?? ''));
}

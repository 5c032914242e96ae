import { beforeEach, describe, expect, it } from 'vitest';

const storage = new Map<string, string>();
(globalThis as { localStorage?: unknown }).localStorage = {
  getItem: (k: string) => storage.get(k) ?? null,
  setItem: (k: string, v: string) => void storage.set(k, v),
  removeItem: (k: string) => void storage.delete(k),
};
const store = await import('../../../renderer/src/tour/tour-store.ts');

const STEPS = ['device', 'telemetry', 'attributes', 'rpc'].map((id) => ({
  id,
  title: id,
  text: `About ${id}`,
  path: id === 'device' ? '/devices/${deviceId}' : '/alarms',
}));
const tour = {
  sandboxId: 'thingsboard-101',
  title: 'ThingsBoard 101',
  steps: STEPS,
  vars: { deviceId: 'a b' },
};
const active = () => JSON.parse(storage.get('sandboard.tour.active') ?? 'null') as { index: number } | null;

describe('the guided tour state', () => {
  beforeEach(() => storage.clear());

  it('a skipped tour resumes at the step it was left on; a finished one starts again from the first', () => {
    store.startTour(tour);
    expect(active()?.index).toBe(0);
    store.goToStep(2);
    store.closeTour(false);
    expect(active()).toBeNull();
    expect(store.tourProgress('thingsboard-101')).toEqual({ index: 2, done: false });
    store.startTour(tour);
    expect(active()?.index).toBe(2);
    store.goToStep(3);
    store.closeTour(true);
    expect(store.tourProgress('thingsboard-101')).toEqual({ index: 3, done: true });
    store.startTour(tour);
    expect(active()?.index).toBe(0);
    // "From the start" restarts a tour left halfway
    store.goToStep(1);
    store.startTour(tour, true);
    expect(active()?.index).toBe(0);
  });

  it('moves only within the tour, and fills in the ids its paths name', () => {
    store.startTour(tour);
    store.goToStep(-1);
    store.goToStep(4);
    expect(active()?.index).toBe(0);
    const a = { ...tour, index: 0 };
    expect(store.stepPath(a, STEPS[0]!)).toBe('/devices/a%20b');
    expect(store.stepPath(a, STEPS[1]!)).toBe('/alarms');
  });
});

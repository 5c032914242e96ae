import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { childMsg, newMsg } from '../../../main/platform/tb-msg.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap bytes each kept id takes (the MQTT inspector keeps the ids of every recorded publish's messages). */
function heapPerKeptId(make: () => string): number {
  const kept: string[] = new Array<string>(20_000);
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < kept.length; i++) kept[i] = make();
  gc();
  const perId = (process.memoryUsage().heapUsed - before) / kept.length;
  expect(new Set(kept).size).toBe(kept.length);
  return perId;
}

describe('message ids', () => {
  it('are UUIDs, new for a child message, which keeps its parent and trace', () => {
    const parent = newMsg('POST_TELEMETRY_REQUEST', { entityType: 'DEVICE', id: 'd' }, {});
    const child = childMsg(parent);
    expect(parent.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(child.id).not.toBe(parent.id);
    expect(child).toMatchObject({ parentId: parent.id, traceId: parent.id });
  });

  it('take little memory where they are kept: one flat string each, not a tree of concatenated pieces', () => {
    const origin = { entityType: 'DEVICE', id: 'd' };
    // a flat 36-character string is ~56 bytes; Node's randomUUID() result as built is ~490
    expect(heapPerKeptId(() => newMsg('POST_TELEMETRY_REQUEST', origin, {}).id)).toBeLessThan(150);
    const parent = newMsg('POST_TELEMETRY_REQUEST', origin, {});
    expect(heapPerKeptId(() => childMsg(parent).id)).toBeLessThan(150);
  });
});

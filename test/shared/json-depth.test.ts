import { describe, expect, it } from 'vitest';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../../shared/limits.ts';

/** `levels` objects or arrays nested in each other, the innermost holding a number. */
function nested(levels: number, kind: 'object' | 'array'): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = kind === 'object' ? { a: v } : [v];
  return v;
}

describe('jsonTooDeep', () => {
  it('accepts values nested up to the limit and names where a deeper one goes too deep', () => {
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH, 'object'), 'payload')).toBeNull();
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH, 'array'))).toBeNull();
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH + 1, 'object'), 'payload')).toBe(
      `payload${'.a'.repeat(MAX_JSON_DEPTH)}`,
    );
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH + 1, 'array'))).toBe(`body${'[0]'.repeat(MAX_JSON_DEPTH)}`);
  });

  it('finds the one deep branch among wide shallow ones, in objects inside arrays', () => {
    const wide = {
      devices: Array.from({ length: 50 }, (_, i) => ({ [`d${i}`]: [{ ts: 1, values: { t: i } }] })),
    };
    expect(jsonTooDeep(wide)).toBeNull();
    (wide.devices[7] as Record<string, unknown>).deep = nested(MAX_JSON_DEPTH, 'object');
    expect(jsonTooDeep(wide)).toBe(`body.devices[7].deep${'.a'.repeat(MAX_JSON_DEPTH - 3)}`);
  });

  it('passes primitives and empty containers', () => {
    for (const v of [null, 1, 'x', true, {}, []]) expect(jsonTooDeep(v)).toBeNull();
  });
});

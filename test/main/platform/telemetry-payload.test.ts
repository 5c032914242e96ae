import { describe, expect, it } from 'vitest';
import { parseAttributes, parseTelemetry } from '../../../main/platform/telemetry-payload.ts';

describe('parseTelemetry', () => {
  it("accepts ThingsBoard's three shapes and stamps entries without ts with now", () => {
    expect(parseTelemetry({ t: 1 }, 5)).toEqual({ ok: true, value: [{ ts: 5, values: { t: 1 } }] });
    expect(parseTelemetry({ ts: 7, values: { t: 2 } }, 5)).toEqual({
      ok: true,
      value: [{ ts: 7, values: { t: 2 } }],
    });
    expect(parseTelemetry([{ ts: '8', values: { t: 3 } }, { h: 4 }], 5)).toEqual({
      ok: true,
      value: [
        { ts: 8, values: { t: 3 } },
        { ts: 5, values: { h: 4 } },
      ],
    });
  });

  it('names what is wrong', () => {
    expect(parseTelemetry([1], 0)).toEqual({ ok: false, error: '[0] must be a JSON object' });
    expect(parseTelemetry({ ts: 'x', values: {} }, 0)).toEqual({
      ok: false,
      error: 'body.ts must be a number of milliseconds from 0 to 253402300799999',
    });
    expect(parseTelemetry({ ts: 1, values: [] }, 0)).toEqual({
      ok: false,
      error: 'body.values must be a JSON object',
    });
    expect(parseTelemetry({}, 0)).toEqual({ ok: false, error: 'No telemetry data in the request' });
  });
});

describe('parseAttributes', () => {
  it('takes a non-empty object only', () => {
    expect(parseAttributes({ a: 1 })).toEqual({ ok: true, value: { a: 1 } });
    expect(parseAttributes([])).toMatchObject({ ok: false });
    expect(parseAttributes({})).toMatchObject({ ok: false });
  });
});

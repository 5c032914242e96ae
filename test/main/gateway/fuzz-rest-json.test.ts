import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadRestConfig, RestConfigError } from '../../../main/gateway/connectors/rest/config.ts';
import { DEFAULT_REST_CONFIG, validateRestConfig } from '../../../shared/schemas/rest-connector.ts';
import { anyJson, fuzzParams, mutationsOf, RAW } from '../../helpers/fuzz.ts';

/** nested() markers stand for JSON too deep to build in the test: parse their text, as a file would be. */
function parsed(value: unknown): unknown {
  const text = JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && RAW in v ? { deep: '(too deep to build here)' } : v,
  );
  return JSON.parse(text ?? 'null');
}

/**
 * rest.json documents, valid ones with a few values replaced or removed and anything at all. Properties:
 * the validator never throws, names every problem by a JSON path in words, and loadRestConfig either
 * returns a configuration or throws RestConfigError, nothing else.
 */
describe('rest.json fuzzing', () => {
  it('validates any document without throwing, and refuses with path-named errors only', () => {
    const docs = fc.oneof(
      { weight: 4, arbitrary: mutationsOf(DEFAULT_REST_CONFIG, 4) },
      { weight: 1, arbitrary: anyJson },
    );
    fc.assert(
      fc.property(docs, (raw) => {
        const doc = parsed(raw);
        const v = validateRestConfig(doc);
        for (const e of [...v.errors, ...v.warnings]) {
          expect(typeof e.path).toBe('string');
          expect(e.message.length).toBeGreaterThan(0);
        }
        expect(v.valid).toBe(v.errors.length === 0);
        try {
          loadRestConfig(doc);
          expect(v.valid).toBe(true);
        } catch (err) {
          expect(err).toBeInstanceOf(RestConfigError);
          expect(v.valid).toBe(false);
        }
      }),
      fuzzParams(1_500),
    );
  });
});

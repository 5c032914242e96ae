import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as TypeboxRoot from 'typebox';
import type * as TypeboxCompile from 'typebox/compile';
import type * as TypeboxValue from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { depBundleDir, depBundleMap, ensureDepBundle } from '../../scripts/dep-bundle.js';
import { tempDir } from '../helpers/temp-dir.ts';

const typeboxDir = fileURLToPath(new URL('../../node_modules/typebox', import.meta.url));

/** A checkout whose node_modules holds the installed typebox. */
function project(): string {
  const root = tempDir();
  mkdirSync(join(root, 'node_modules'));
  symlinkSync(typeboxDir, join(root, 'node_modules', 'typebox'), 'dir');
  return root;
}

describe('the typebox bundle bin/sandboard.js starts from', () => {
  it('is built once per installed typebox and behaves as typebox does', async () => {
    const root = project();
    expect(depBundleMap(root)).toBeNull();
    expect(await ensureDepBundle(root)).toBe('built');
    expect(await ensureDepBundle(root)).toBe('fresh');
    const map = depBundleMap(root)!;
    for (const specifier of ['typebox', 'typebox/value', 'typebox/compile', 'typebox/schema']) {
      const bundled = Object.keys((await import(map[specifier]!)) as object).sort();
      expect(bundled, specifier).toEqual(Object.keys((await import(specifier)) as object).sort());
    }
    const { Type } = (await import(map['typebox']!)) as typeof TypeboxRoot;
    const { Value } = (await import(map['typebox/value']!)) as typeof TypeboxValue;
    const { Compile } = (await import(map['typebox/compile']!)) as typeof TypeboxCompile;
    const schema = Type.Object({ name: Type.String({ maxLength: 3 }), n: Type.Optional(Type.Integer()) });
    expect(Value.Check(schema, { name: 'abc', n: 1 })).toBe(true);
    expect(Value.Check(schema, { name: 'abcd' })).toBe(false);
    expect([...Value.Errors(schema, { name: 'abc', n: 1.5 })][0]?.instancePath).toBe('/n');
    expect(Compile(schema).Check({ name: 'x' })).toBe(true);
  });

  it('is not used once typebox changes, until it is built again', async () => {
    const root = project();
    await ensureDepBundle(root);
    const manifest = join(depBundleDir(root), 'manifest.json');
    writeFileSync(manifest, JSON.stringify({ key: 'typebox@0.0.1 format 1' }));
    expect(depBundleMap(root)).toBeNull();
    expect(await ensureDepBundle(root)).toBe('built');
    expect(readFileSync(manifest, 'utf8')).toContain('typebox@');
    expect(depBundleMap(root)).not.toBeNull();
  });

  it('says why there is none without typebox, and fails nothing', async () => {
    const root = tempDir();
    expect(await ensureDepBundle(root)).toMatch(/^unavailable: typebox is not installed/);
    expect(depBundleMap(root)).toBeNull();
  });
});

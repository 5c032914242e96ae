import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as TypeboxRoot from 'typebox';
import type * as TypeboxCompile from 'typebox/compile';
import type * as TypeboxValue from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { depBundleDir, depBundleMap, ensureDepBundle } from '../../scripts/dep-bundle.js';
import { tempDir } from '../helpers/temp-dir.ts';

const nodeModules = fileURLToPath(new URL('../../node_modules/', import.meta.url));
const require = createRequire(import.meta.url);

/** A checkout whose node_modules holds the installed typebox, yaml and semver. */
function project(): string {
  const root = tempDir();
  mkdirSync(join(root, 'node_modules'));
  for (const name of ['typebox', 'yaml', 'semver'])
    symlinkSync(join(nodeModules, name), join(root, 'node_modules', name), 'dir');
  return root;
}

/** the bundled module that takes the place of what `specifier` resolves to */
function bundled(map: Record<string, string>, specifier: string): string {
  const url = map[pathToFileURL(realpathSync(require.resolve(specifier))).href];
  expect(url, specifier).toBeDefined();
  return url!;
}

describe('the dependency bundle bin/sandboard.js starts from', () => {
  it('is built once per installed typebox and behaves as typebox does', async () => {
    const root = project();
    expect(depBundleMap(root)).toBeNull();
    expect(await ensureDepBundle(root)).toBe('built');
    expect(await ensureDepBundle(root)).toBe('fresh');
    const map = depBundleMap(root)!;
    for (const specifier of ['typebox', 'typebox/value', 'typebox/compile', 'typebox/schema']) {
      const keys = Object.keys((await import(bundled(map, specifier))) as object).sort();
      expect(keys, specifier).toEqual(Object.keys((await import(specifier)) as object).sort());
    }
    for (const specifier of ['yaml', 'semver']) {
      const keys = Object.keys(require(fileURLToPath(bundled(map, specifier))) as object).sort();
      expect(keys, specifier).toEqual(Object.keys(require(specifier) as object).sort());
    }
    const { Type } = (await import(bundled(map, 'typebox'))) as typeof TypeboxRoot;
    const { Value } = (await import(bundled(map, 'typebox/value'))) as typeof TypeboxValue;
    const { Compile } = (await import(bundled(map, 'typebox/compile'))) as typeof TypeboxCompile;
    const schema = Type.Object({ name: Type.String({ maxLength: 3 }), n: Type.Optional(Type.Integer()) });
    expect(Value.Check(schema, { name: 'abc', n: 1 })).toBe(true);
    expect(Value.Check(schema, { name: 'abcd' })).toBe(false);
    expect([...Value.Errors(schema, { name: 'abc', n: 1.5 })][0]?.instancePath).toBe('/n');
    expect(Compile(schema).Check({ name: 'x' })).toBe(true);
    // Fastify and @fastify/swagger require() these two
    const semver = require(fileURLToPath(bundled(map, 'semver'))) as {
      satisfies(v: string, r: string): boolean;
    };
    expect(semver.satisfies('5.1.0', '>=5.0.0')).toBe(true);
    expect(semver.satisfies('4.9.0', '>=5.0.0')).toBe(false);
    const yaml = require(fileURLToPath(bundled(map, 'yaml'))) as { stringify(v: unknown): string };
    expect(yaml.stringify({ a: [1, 2] })).toBe('a:\n  - 1\n  - 2\n');
  });

  it('is not used once typebox changes, until it is built again', async () => {
    const root = project();
    await ensureDepBundle(root);
    const manifest = join(depBundleDir(root), 'manifest.json');
    writeFileSync(manifest, JSON.stringify({ key: 'typebox@0.0.1 format 1', entries: {} }));
    expect(depBundleMap(root)).toBeNull();
    expect(await ensureDepBundle(root)).toBe('built');
    expect(readFileSync(manifest, 'utf8')).toContain('typebox@');
    expect(depBundleMap(root)).not.toBeNull();
  });

  it('says why there is none without typebox, and fails nothing', async () => {
    const root = tempDir();
    expect(await ensureDepBundle(root)).toMatch(/^unavailable: typebox, yaml, semver are not all installed/);
    expect(depBundleMap(root)).toBeNull();
  });
});

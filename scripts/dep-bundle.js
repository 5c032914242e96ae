#!/usr/bin/env node
// typebox 1.x is some 680 small ES modules: resolving, reading and linking them was a third of
// `sandboard serve`'s start. Built once (npm install's postinstall, bench:startup, or `node
// scripts/dep-bundle.js`), a bundle of typebox's entry points in node_modules/.cache takes its place in
// bin/sandboard.js's process through a resolve hook. Without a bundle for the installed typebox (rolldown,
// a dev dependency, missing; typebox upgraded), everything resolves from node_modules as before.
// Plain JavaScript: it runs on whatever Node runs npm.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** typebox's entry points (its package.json exports), by the file name each gets in the bundle */
const ENTRIES = {
  index: 'typebox',
  compile: 'typebox/compile',
  error: 'typebox/error',
  format: 'typebox/format',
  guard: 'typebox/guard',
  schema: 'typebox/schema',
  system: 'typebox/system',
  type: 'typebox/type',
  value: 'typebox/value',
};
/** raised when the bundle's shape changes, so an older bundle is rebuilt */
const FORMAT = 1;

export function depBundleDir(root) {
  return join(root, 'node_modules', '.cache', 'sandboard-deps');
}

/** What a bundle must have been built from: the installed typebox's version and this script's format. */
function bundleKey(root) {
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'node_modules', 'typebox', 'package.json'), 'utf8'));
    return `typebox@${pkg.version} format ${FORMAT}`;
  } catch {
    return null;
  }
}

/** specifier -> file URL of its bundled module, or null when there is no bundle for the installed typebox. */
export function depBundleMap(root) {
  const dir = depBundleDir(root);
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  } catch {
    return null;
  }
  if (manifest.key !== bundleKey(root)) return null;
  const map = {};
  for (const [name, specifier] of Object.entries(ENTRIES))
    map[specifier] = pathToFileURL(join(dir, `${name}.mjs`)).href;
  return map;
}

/**
 * Builds the bundle unless one for the installed typebox is there. Returns what it did: 'fresh', 'built'
 * or 'unavailable: why' (no typebox, no rolldown): never throws, the bundle only saves time.
 */
export async function ensureDepBundle(root) {
  const key = bundleKey(root);
  if (!key) return 'unavailable: typebox is not installed';
  if (depBundleMap(root)) return 'fresh';
  let rolldown;
  try {
    // vite's bundler (a dev dependency of ours through vite)
    rolldown = await import('rolldown');
  } catch (err) {
    return `unavailable: rolldown cannot be loaded (${err instanceof Error ? err.message : String(err)})`;
  }
  const dir = depBundleDir(root);
  // built beside and renamed into place: a start that reads it meanwhile sees the old bundle or none
  const tmp = `${dir}.${process.pid}.tmp`;
  try {
    rmSync(tmp, { recursive: true, force: true });
    await rolldown.build({
      cwd: root,
      input: ENTRIES,
      platform: 'node',
      logLevel: 'silent',
      output: {
        dir: tmp,
        format: 'esm',
        entryFileNames: '[name].mjs',
        chunkFileNames: 'chunk-[name]-[hash].mjs',
      },
    });
    for (const name of Object.keys(ENTRIES)) {
      if (!existsSync(join(tmp, `${name}.mjs`))) throw new Error(`rolldown wrote no ${name}.mjs`);
    }
    writeFileSync(join(tmp, 'manifest.json'), `${JSON.stringify({ key })}\n`);
    mkdirSync(dirname(dir), { recursive: true });
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
    return 'built';
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    return `unavailable: ${err instanceof Error ? err.message : String(err)}`;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  process.stdout.write(`sandboard: typebox bundle for faster starts: ${await ensureDepBundle(root)}\n`);
}

#!/usr/bin/env node
// typebox 1.x is some 680 small ES modules, and yaml and semver (which @fastify/swagger and Fastify load
// whole) another 120: resolving, reading and linking them was a third of `sandboard serve`'s start. Built
// once (npm install's postinstall, bench:startup, or `node scripts/dep-bundle.js`), a bundle of each in
// node_modules/.cache takes its place in bin/sandboard.js's process through a resolve hook. Without a bundle
// for the installed versions (rolldown, a dev dependency, missing; a package upgraded), everything resolves
// from node_modules as before. Plain JavaScript: it runs on whatever Node runs npm.
import {
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The bundled packages' entry points (their package.json exports), by the file name each gets. */
const ESM_ENTRIES = {
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
/** CommonJS packages stay CommonJS: Fastify and @fastify/swagger require() them */
const CJS_ENTRIES = { yaml: 'yaml', semver: 'semver' };
const PACKAGES = ['typebox', 'yaml', 'semver'];
/** raised when the bundle's shape changes, so an older bundle is rebuilt */
const FORMAT = 2;

export function depBundleDir(root) {
  return join(root, 'node_modules', '.cache', 'sandboard-deps');
}

/** What a bundle must have been built from: the installed packages' versions and this script's format. */
function bundleKey(root) {
  const versions = [];
  for (const name of PACKAGES) {
    try {
      const pkg = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8'));
      versions.push(`${name}@${pkg.version}`);
    } catch {
      return null;
    }
  }
  return `${versions.join(' ')} format ${FORMAT}`;
}

/**
 * The file URL each bundled entry point resolves to in node_modules -> the URL of its bundled module, or null
 * when there is no bundle for the installed packages.
 */
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
  const real = realpathSync(root);
  for (const [path, file] of Object.entries(manifest.entries))
    map[pathToFileURL(join(real, path)).href] = pathToFileURL(join(dir, file)).href;
  return map;
}

/**
 * Builds the bundle unless one for the installed packages is there. Returns what it did: 'fresh', 'built'
 * or 'unavailable: why' (a package or rolldown missing): never throws, the bundle only saves time.
 */
export async function ensureDepBundle(root) {
  const key = bundleKey(root);
  if (!key) return `unavailable: ${PACKAGES.join(', ')} are not all installed`;
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
    const entries = {};
    const require = createRequire(join(root, 'package.json'));
    for (const [input, ext] of [
      [ESM_ENTRIES, 'mjs'],
      [CJS_ENTRIES, 'cjs'],
    ]) {
      await rolldown.build({
        cwd: root,
        input,
        platform: 'node',
        logLevel: 'silent',
        output: {
          dir: tmp,
          format: ext === 'mjs' ? 'esm' : 'cjs',
          entryFileNames: `[name].${ext}`,
          chunkFileNames: `chunk-[name]-[hash].${ext}`,
        },
      });
      for (const [name, specifier] of Object.entries(input)) {
        const file = `${name}.${ext}`;
        if (!existsSync(join(tmp, file))) throw new Error(`rolldown wrote no ${file}`);
        // by its path in the checkout (resolved as Node resolves it: symlinks followed), so a moved checkout keeps it
        const path = relative(realpathSync(root), realpathSync(require.resolve(specifier)));
        entries[path.split(sep).join('/')] = file;
      }
    }
    writeFileSync(join(tmp, 'manifest.json'), `${JSON.stringify({ key, entries }, null, 2)}\n`);
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
  process.stdout.write(`sandboard: bundled dependencies for faster starts: ${await ensureDepBundle(root)}\n`);
}

// npm run build:core: compiles the platform core (main/ + shared/) to dist/core/ for the desktop app's
// utility process, copies the files the core reads at run time, and gives dist/core a package.json
// (the core reads its version from ../package.json and is an ES module). The built UI (renderer/dist,
// from npm run build:ui) is copied to dist/core/renderer/dist, where the compiled core's ui-routes looks
// for it (three folders up from main/api/routes/), so dist/core is complete on its own.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'dist', 'core');

/** Runs the TypeScript compiler on a project file; exits on errors. */
function runTsc(project: string): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write(`tsc -p ${project} failed\n`);
    process.exit(result.status ?? 1);
  }
}

/** Copies every file that is not TypeScript (html, js, sql, json, ...) from `dir` to the same place under out. */
function copyAssets(dir: string): number {
  let copied = 0;
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || entry.name.endsWith('.ts')) continue;
    const from = join(entry.parentPath, entry.name);
    const to = join(out, relative(root, from));
    mkdirSync(dirname(to), { recursive: true });
    cpSync(from, to);
    copied++;
  }
  return copied;
}

rmSync(out, { recursive: true, force: true });
runTsc('tsconfig.build.json');
const assets = copyAssets('main') + copyAssets('shared');
const ui = join(root, 'renderer', 'dist');
const uiBuilt = existsSync(join(ui, 'index.html'));
if (uiBuilt) cpSync(ui, join(out, 'renderer', 'dist'), { recursive: true });
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
writeFileSync(
  join(out, 'package.json'),
  `${JSON.stringify({ name: 'sandboard-core', version: pkg.version, private: true, type: 'module' }, null, 2)}\n`,
);
process.stdout.write(`build:core: dist/core (${assets} asset file(s) copied)\n`);
if (uiBuilt) process.stdout.write('build:core: UI copied from renderer/dist\n');
else
  process.stdout.write(
    'build:core: renderer/dist has no build yet (npm run build:ui); the app will say so\n',
  );

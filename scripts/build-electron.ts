// npm run build:electron: compiles the Electron main process and the core's utility-process entry to
// dist/electron/ (ES modules), and bundles the preload into one CommonJS file, since sandboxed preloads
// cannot load ES modules or other local files.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'dist', 'electron');

rmSync(out, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', 'electron/tsconfig.build.json'], {
  cwd: root,
  stdio: 'inherit',
});
if (compiled.status !== 0) {
  process.stderr.write('tsc -p electron/tsconfig.build.json failed\n');
  process.exit(compiled.status ?? 1);
}
// Only types come from shared/ (the bridge's contract): its compiled module is empty and unused.
rmSync(join(root, 'dist', 'shared'), { recursive: true, force: true });

await build({
  configFile: false,
  root,
  logLevel: 'warn',
  build: {
    outDir: join(out, 'preload'),
    emptyOutDir: true,
    minify: false,
    sourcemap: false,
    target: 'node22',
    lib: {
      entry: join(root, 'electron', 'preload', 'index.ts'),
      formats: ['cjs'],
      fileName: () => 'index.cjs',
    },
    rolldownOptions: { external: ['electron'] },
  },
});
process.stdout.write('build:electron: dist/electron (main, core-entry, preload/index.cjs)\n');

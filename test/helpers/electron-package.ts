import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp-dir.ts';

/** A project folder with node_modules/electron as npm leaves it, optionally with its binary. */
export function fakeElectronProject(opts: { pathTxt?: string; binary?: boolean }): string {
  const root = tempDir();
  writeFileSync(join(root, 'package.json'), '{"name":"p","type":"module"}');
  const electron = join(root, 'node_modules', 'electron');
  mkdirSync(join(electron, 'dist'), { recursive: true });
  writeFileSync(join(electron, 'package.json'), '{"name":"electron","version":"45.4.1","main":"index.js"}');
  writeFileSync(join(electron, 'install.js'), '');
  if (opts.pathTxt) writeFileSync(join(electron, 'path.txt'), opts.pathTxt);
  if (opts.binary && opts.pathTxt) writeFileSync(join(electron, 'dist', opts.pathTxt), '');
  return root;
}

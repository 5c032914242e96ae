import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SHARED = fileURLToPath(new URL('../../shared/', import.meta.url));

/** Relative module specifiers of import / export ... from / import() in a TypeScript source. */
function relativeSpecifiers(text: string): string[] {
  const found = text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(["'])(\.[^"']*)\1/gm);
  return [...found].map((m) => m[2]!);
}

describe('shared/', () => {
  it('imports nothing of ours outside shared/ (the UI, the core and the desktop shell all read it)', () => {
    const outside: string[] = [];
    const files = readdirSync(SHARED, { recursive: true, encoding: 'utf8' }).filter((f) => /\.tsx?$/.test(f));
    expect(files).toContain('desktop-bridge.ts');
    for (const file of files) {
      for (const specifier of relativeSpecifiers(readFileSync(join(SHARED, file), 'utf8'))) {
        const target = relative(SHARED, resolve(dirname(join(SHARED, file)), specifier));
        if (target.startsWith(`..${sep}`) || target === '..') outside.push(`shared/${file}: ${specifier}`);
      }
    }
    expect(outside).toEqual([]);
  });

  it('recognises each way a module is imported', () => {
    expect(
      relativeSpecifiers(
        [
          "import type { A } from '../electron/a.ts';",
          "export type { B } from './b.ts';",
          "import './side-effect.ts';",
          "const c = await import('../main/c.ts');",
          "import { d } from 'typebox';",
        ].join('\n'),
      ),
    ).toEqual(['../electron/a.ts', './b.ts', './side-effect.ts', '../main/c.ts']);
  });
});

import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { outsidePaths, outsidePathsIn } from './outside-paths.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// The samples below are built, not written out, so that this file has no such path of its own.
const UP = '..';
const up = (n: number) => Array<string>(n).fill(UP).join('/');
const quoted = (path: string) => `'${path}'`;

describe('the repository is self-contained', () => {
  it('has no test, bench, script or module that reads a path outside the repository', () => {
    const hits = outsidePaths(ROOT).map((h) => `${h.file}:${h.line}: ${h.literal}`);
    expect(hits, 'these paths resolve above the repository root; copy what they read into it').toEqual([]);
  });

  it('catches the ways such a path is written', () => {
    const at = (file: string, text: string) => outsidePathsIn(ROOT, file, text).map((h) => h.literal);
    // the gateway tests' kit once read the IoT Gateway's rest.json from a folder beside the repository
    const kit = `export const COMPAT_DIR = new URL(${quoted(`${up(4)}/shared/compat/`)}, import.meta.url);`;
    expect(at('test/main/gateway/gateway-kit.ts', kit)).toEqual([`${up(4)}/shared/compat/`]);
    const template = `readFileSync(\`${up(2)}/data/\${name}.json\`)`;
    expect(at('bench/x.ts', template)).toEqual([`${up(2)}/data/`]);
    expect(at('vitest.config.ts', `const parent = ${quoted(UP)};`)).toEqual([UP]);
    const joined = `join(ROOT, ${quoted(UP)}, 'shared', 'compat')`;
    expect(at('test/x.test.ts', joined)).toEqual([`${UP}/shared/compat`]);
    const resolved = `resolve(import.meta.dirname, ${quoted(UP)}, ${quoted(UP)}, 'shared')`;
    expect(at('scripts/x.ts', resolved)).toEqual([`${up(2)}/shared`]);
  });

  it('lets paths that stay inside the repository through', () => {
    const at = (file: string, text: string) => outsidePathsIn(ROOT, file, text);
    const fixtures = `new URL(${quoted(`${up(2)}/fixtures/compat/`)}, import.meta.url)`;
    expect(at('test/main/gateway/gateway-kit.ts', fixtures)).toEqual([]);
    expect(at('test/main/x.test.ts', `import { main } from ${quoted(`${up(2)}/main/cli.ts`)};`)).toEqual([]);
    expect(at('scripts/start.js', `new URL(${quoted(UP)}, import.meta.url)`)).toEqual([]);
    expect(at('scripts/x.ts', `join(import.meta.dirname, ${quoted(UP)}, 'main')`)).toEqual([]);
  });
});

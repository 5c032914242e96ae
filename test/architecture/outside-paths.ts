// Finds paths in the project's sources that lead outside the repository: a user's clone has nothing
// beside it, so a test, bench, script or module that reads a folder beside the repository (a relative
// path climbing above the root) fails there.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** Folders whose sources are scanned, and source files at the top level. */
export const SCANNED_FOLDERS = [
  'test',
  'bench',
  'scripts',
  'e2e',
  'main',
  'renderer',
  'electron',
  'shared',
  'bin',
  'build',
];
const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const SKIPPED = new Set(['node_modules', 'dist']);

export interface OutsidePath {
  /** the file, relative to the repository's root */
  file: string;
  line: number;
  /** the path as written */
  literal: string;
}

/** A string literal's text up to its first `${` (template literals), when it starts with `..`. */
function relativeLiterals(text: string): { value: string; index: number }[] {
  const found: { value: string; index: number }[] = [];
  for (const m of text.matchAll(/(["'`])(\.\.(?:\/[^"'`\n]*)?)\1/g)) {
    found.push({ value: m[2]!.split('${')[0]!, index: m.index });
  }
  return found;
}

/** join() and resolve() calls from a base they name (the root, or this file's folder), then literal segments. */
function joinedSegments(text: string): { value: string; index: number; base: 'root' | 'file' }[] {
  const found: { value: string; index: number; base: 'root' | 'file' }[] = [];
  const call = /\b(?:join|resolve)\(\s*([\w.$]+(?:\([^()]*\))?)\s*,((?:\s*(["'])[^"'\n]*\3\s*,?)+)/g;
  for (const m of text.matchAll(call)) {
    const first = m[1]!;
    const base = /root|repo/i.test(first)
      ? 'root'
      : /__dirname|import\.meta\.dirname|dirname\(/.test(first)
        ? 'file'
        : null;
    if (!base) continue;
    const segments = [...m[2]!.matchAll(/(["'])([^"'\n]*)\1/g)].map((s) => s[2]!);
    if (!segments.includes('..') && !segments.some((s) => s.startsWith('../'))) continue;
    found.push({ value: segments.join('/'), index: m.index, base });
  }
  return found;
}

function escapes(root: string, from: string, path: string): boolean {
  const rel = relative(root, resolve(from, path));
  return rel === '..' || rel.startsWith(`..${sep}`);
}

/** The paths in one source file (text given) that resolve above the repository's root. */
export function outsidePathsIn(root: string, file: string, text: string): OutsidePath[] {
  const folder = dirname(join(root, file));
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  const hits: OutsidePath[] = [];
  for (const { value, index } of relativeLiterals(text)) {
    if (escapes(root, folder, value)) hits.push({ file, line: lineOf(index), literal: value });
  }
  for (const { value, index, base } of joinedSegments(text)) {
    if (escapes(root, base === 'root' ? root : folder, value))
      hits.push({ file, line: lineOf(index), literal: value });
  }
  return hits;
}

function sourceFiles(root: string, folder: string): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (SOURCE.test(entry.name)) files.push(path);
    }
  };
  walk(folder);
  return files;
}

/** Every path in the repository's sources that resolves above its root. */
export function outsidePaths(root: string): OutsidePath[] {
  const topLevel = readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isFile() && SOURCE.test(e.name))
    .map((e) => e.name);
  const folders = SCANNED_FOLDERS.filter((f) => existsSync(join(root, f)));
  const files = [...topLevel, ...folders.flatMap((f) => sourceFiles(root, f))];
  return files.flatMap((file) => outsidePathsIn(root, file, readFileSync(join(root, file), 'utf8')));
}

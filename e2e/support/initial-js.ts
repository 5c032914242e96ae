import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export interface InitialJs {
  files: { file: string; bytes: number; gzipBytes: number }[];
  gzipBytes: number;
}

/**
 * The JavaScript a browser loads before the login page shows: the scripts and module preloads that
 * index.html names, and every chunk they import statically (dynamic imports are left out).
 */
export function initialJs(distDir: string): InitialJs {
  const html = readFileSync(join(distDir, 'index.html'), 'utf8');
  const queue = [
    ...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="\/([^"]+\.js)"/g),
  ].map((m) => m[1]!);
  const seen = new Set<string>();
  while (queue.length) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const code = readFileSync(join(distDir, file), 'utf8');
    // static imports between chunks: import{...}from"./x.js" or import"./x.js"
    for (const m of code.matchAll(/(?:^|[;\s}])import\s*(?:[\w${},\s*]+from\s*)?["']\.\/([^"']+\.js)["']/g)) {
      queue.push(join(file, '..', m[1]!));
    }
  }
  const files = [...seen].map((file) => {
    const buf = readFileSync(join(distDir, file));
    return { file, bytes: buf.length, gzipBytes: gzipSync(buf, { level: 9 }).length };
  });
  return { files, gzipBytes: files.reduce((sum, f) => sum + f.gzipBytes, 0) };
}

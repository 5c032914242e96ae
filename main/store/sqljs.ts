import { createRequire } from 'node:module';
import type { SqlJsStatic } from 'sql.js';

let sqlJs: Promise<SqlJsStatic> | undefined;

/** Loads the sql.js WebAssembly module once per process. */
export function loadSqlJs(): Promise<SqlJsStatic> {
  if (!sqlJs) {
    const require = createRequire(import.meta.url);
    const init = require('sql.js') as (config?: object) => Promise<SqlJsStatic>;
    sqlJs = init();
  }
  return sqlJs;
}

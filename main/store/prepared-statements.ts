import type { Database, Statement } from 'sql.js';

/** A database's statements, each SQL text prepared when first used and kept until freed. */
export class PreparedStatements {
  private readonly db: Database;
  private readonly bySql = new Map<string, Statement>();

  constructor(db: Database) {
    this.db = db;
  }

  get size(): number {
    return this.bySql.size;
  }

  get(sql: string): Statement {
    let stmt = this.bySql.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.bySql.set(sql, stmt);
    }
    return stmt;
  }

  free(): void {
    for (const stmt of this.bySql.values()) stmt.free();
    this.bySql.clear();
  }
}

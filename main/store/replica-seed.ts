import type { Database, SqlJsStatic } from 'sql.js';
import { replayJournal } from './replay.ts';
import { openSnapshot } from './snapshot-file.ts';

/**
 * Where a read replica builds its copy of the store: the snapshot file of `dir` plus the journal `files`
 * (fsynced, kept on disk until the replica is seeded) up to record `seq`. Records after `seq` reach the
 * replica as messages.
 */
export interface ReplicaSeed {
  dir: string;
  files: string[];
  seq: number;
}

/**
 * Builds a replica from its seed, off the network thread (the report workers do this). A snapshot
 * written meanwhile may already hold records past `seq`: the returned seq says which records to skip.
 */
export function openReplica(
  SQL: SqlJsStatic,
  seed: ReplicaSeed,
): { db: Database; seq: number; snapshotSeq: number } {
  const { db, seq } = openSnapshot(SQL, seed.dir);
  try {
    if (seq >= seed.seq) return { db, seq, snapshotSeq: seq };
    const replayed = replayJournal(db, seq, {
      dir: seed.dir,
      files: seed.files,
      untilSeq: seed.seq,
      repair: false,
    });
    if (replayed.seq !== seed.seq)
      throw new Error(`the journal ends at record ${replayed.seq}, record ${seed.seq} is needed`);
    return { db, seq: replayed.seq, snapshotSeq: seq };
  } catch (err) {
    db.close();
    throw err;
  }
}

import type { SandboxConflictMode, SandboxHeader, SandboxPlanItem } from '../../../shared/schemas/sandbox.ts';

/** A line of an attached kind as read: its number in the file (for messages) and its value. */
export interface AttachedLine {
  line: number;
  value: unknown;
}

export interface AttachedPlan {
  counts: { new: number; replace: number; conflict: number };
  /** the first items, as the tables' plan items */
  items: SandboxPlanItem[];
}

export interface AttachedImport {
  replaceAll: boolean;
  onConflict: SandboxConflictMode;
  header: SandboxHeader;
  /** the import's id, written with the store's part: a restart finishes or drops what was staged by it */
  importId: string;
}

/** An import of attached lines made ready before the store's write; commit runs only after it. */
export interface StagedAttachment {
  /** makes it so (cannot be taken back); counts written, kept out and renamed */
  commit(): Promise<{ written: number; kept: number; renamed: number }>;
  /** drops what was staged (the store's write failed) */
  abort(): Promise<void>;
}

/**
 * Something a sandbox file carries that is not in the store (recordings, as files): its owner, given by
 * the composition root, writes its lines on export and reads them back on import. `name` keys the
 * header's includes and counts and the plan's tables; `kind` is its lines' key.
 */
export interface SandboxAttachment {
  name: string;
  kind: string;
  /** what it holds now: how many (header counts, what a reset loses) and its lines' values, in order */
  snapshot(): { count: number; lines(): AsyncIterable<unknown> };
  /**
   * Checks the file's lines together (throws a SandboxFormatError naming line and path, or a
   * PlatformError for a bound) and says what importing them would do. Touches nothing.
   */
  plan(lines: AttachedLine[], o: AttachedImport): Promise<AttachedPlan>;
  /** Checks as plan does and stages everything that could fail (written and synced aside). */
  stage(lines: AttachedLine[], o: AttachedImport): Promise<StagedAttachment>;
  /**
   * At start: what a killed import left staged is finished when its store write committed (its id is
   * `committedImportId`) and dropped otherwise, so the files follow the store.
   */
  recover(committedImportId: string | undefined): Promise<void>;
}

import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';

/** A node whose user code was running when the process stopped, as the next start finds it. */
interface Running {
  name: string;
  since: number;
}

interface GuardFile {
  running: Record<string, Running>;
  /** node id -> why it does not run, until its chain is saved again */
  suspended: Record<string, string>;
}

/**
 * Keeps a crash from becoming a crash loop. Before a node runs its user code for the first time in this
 * process, its id is written durably to a marker file, and removed once the run is over. Should the process
 * die meanwhile, the next start finds the id there and suspends the node (its messages go to Failure with
 * the reason, the UI shows it, the log says it) instead of running the same code into the same crash; the
 * node runs again once its chain is saved.
 */
export class UserCodeGuard {
  private readonly file: string;
  private readonly warn: (line: string) => void;
  private readonly state: GuardFile = { running: {}, suspended: {} };
  /** nodes whose first run in this process is over */
  private readonly proven = new Set<string>();

  constructor(file: string, warn: (line: string) => void) {
    this.file = file;
    this.warn = warn;
    let found: Partial<GuardFile> | null = null;
    try {
      found = JSON.parse(readFileSync(file, 'utf8')) as Partial<GuardFile>;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        warn(`[rule engine] ${file} could not be read (${(err as Error).message}); starting without it`);
    }
    if (found && typeof found === 'object') {
      for (const [id, reason] of Object.entries(found.suspended ?? {}))
        if (typeof reason === 'string') this.state.suspended[id] = reason;
      for (const [id, r] of Object.entries(found.running ?? {})) {
        const name = typeof r?.name === 'string' ? r.name : id;
        const at = typeof r?.since === 'number' ? new Date(r.since).toISOString() : 'an unknown time';
        this.state.suspended[id] =
          `Suspended: the server stopped while this node ran its script (started at ${at}); save the rule chain to run it again`;
        warn(
          `[rule engine] rule node '${name}' (${id}) was running its script when the server stopped: it is suspended until its rule chain is saved`,
        );
      }
    }
    this.write();
  }

  /** Why the node may not run, or null. */
  suspended(nodeId: string): string | null {
    return this.state.suspended[nodeId] ?? null;
  }

  /** Before the node's user code runs: true when this is its first run here and the marker was written. */
  enter(nodeId: string, name: string): boolean {
    if (this.proven.has(nodeId) || this.state.running[nodeId]) return false;
    this.state.running[nodeId] = { name, since: Date.now() };
    this.write();
    return true;
  }

  /** After a run that enter() marked: the node has run once without taking the process down. */
  leave(nodeId: string): void {
    this.proven.add(nodeId);
    if (!this.state.running[nodeId]) return;
    delete this.state.running[nodeId];
    this.write();
  }

  /** The nodes of a chain that was saved: they run again. */
  clear(nodeIds: Iterable<string>): void {
    let changed = false;
    for (const id of nodeIds) {
      if (this.state.suspended[id] === undefined) continue;
      delete this.state.suspended[id];
      changed = true;
    }
    if (changed) this.write();
  }

  /**
   * Written to a temporary file, synced and renamed: the marker is on disk before the code runs. With
   * nothing running or suspended there is no file, so the data dir holds only what the user expects.
   */
  private write(): void {
    const tmp = `${this.file}.tmp`;
    try {
      if (Object.keys(this.state.running).length === 0 && Object.keys(this.state.suspended).length === 0) {
        rmSync(this.file, { force: true });
        return;
      }
      const fd = openSync(tmp, 'w');
      try {
        writeSync(fd, JSON.stringify(this.state));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, this.file);
    } catch (err) {
      this.warn(`[rule engine] ${this.file} could not be written: ${(err as Error).message}`);
    }
  }
}

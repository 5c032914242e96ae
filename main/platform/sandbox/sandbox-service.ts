import { randomUUID } from 'node:crypto';
import { closeSync, createReadStream, existsSync, openSync, readSync, statSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Readable } from 'node:stream';
import {
  headerIssues,
  SandboxFormatError,
  type ClassStartStatus,
  type SandboxHeader,
  type SandboxConflictMode,
  type SandboxImportResult,
  type SandboxJob,
  type SandboxPlan,
} from '../../../shared/schemas/sandbox.ts';
import type { PlatformContext } from '../context.ts';
import { PlatformError } from '../errors.ts';
import { applySandbox, LAST_IMPORT_KEY, planSandbox } from './sandbox-apply.ts';
import type { SandboxAttachment, StagedAttachment } from './sandbox-attachments.ts';
import { sandboxCounts, sandboxLines, type SandboxExportOptions } from './sandbox-export.ts';
import { readSandbox, type ParsedSandbox } from './sandbox-read.ts';

export const CLASS_START_FILE = 'class-start.sandbox.jsonl';
/** the whole database at the class start: a reset swaps it in (the sandbox file is the fallback) */
export const CLASS_START_IMAGE = 'class-start.sqlite';
const KEPT_JOBS = 20;

/** A device's name and credentials, as an import may change them. */
interface DeviceKeys {
  name: string;
  token: string | null;
  credentials: string;
}
/** default bound on an import (bytes once unzipped): a 1M-row history is about 60 MB */
export const DEFAULT_SANDBOX_IMPORT_BYTES = 512 * 1024 * 1024;

export interface SandboxServiceOptions {
  /** where the class start is kept; none: no trainer mode (in-process tests without a data dir) */
  dataDir?: string;
  /** bound on an import's bytes (unzipped) */
  maxImportBytes: number;
  generator: string;
}

/** An export's options; `without` names attachments left out (recordings=false). */
export type ExportOptions = Omit<SandboxExportOptions, 'generator' | 'attachments'> & { without?: string[] };

export interface ImportOptions {
  replaceAll?: boolean;
  onConflict?: SandboxConflictMode;
  totalBytes?: number;
}

/** A refused file: 413 when too large, else 400 with every problem named by line and JSON path. */
export function sandboxRefusal(err: SandboxFormatError): PlatformError {
  const tooLarge = err.issues.some((i) => i.message.includes('the import limit'));
  return new PlatformError(tooLarge ? 413 : 400, 31, err.message);
}

/** Writes lines to a file durably: a temporary file, fsynced, then renamed over the target. */
export async function writeLinesDurably(
  path: string,
  lines: AsyncIterable<string>,
  o: { gzip?: boolean } = {},
): Promise<number> {
  // gzipped block by block: concatenated gzip members are one gzip file to every reader
  const encode = (text: string) => (o.gzip ? gzipSync(text) : Buffer.from(text));
  const tmp = `${path}.tmp`;
  const handle = await open(tmp, 'w');
  let bytes = 0;
  try {
    let buffered: string[] = [];
    let size = 0;
    for await (const line of lines) {
      buffered.push(line);
      size += line.length;
      if (size >= 1 << 20) {
        const buf = encode(buffered.join(''));
        bytes += buf.length;
        await handle.write(buf);
        buffered = [];
        size = 0;
      }
    }
    const buf = encode(buffered.join(''));
    bytes += buf.length;
    await handle.write(buf);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, path);
  return bytes;
}

/**
 * Sandboxes of this instance: export as a stream, plan and import (one job at a time, all or nothing),
 * and trainer mode's class start. After an import the platform's caches are told (event sandboxLoaded).
 */
export class SandboxService {
  private readonly ctx: PlatformContext;
  private readonly o: SandboxServiceOptions;
  private readonly jobs = new Map<string, SandboxJob>();
  private busy = false;
  private readonly attachments: SandboxAttachment[] = [];

  constructor(ctx: PlatformContext, options: SandboxServiceOptions) {
    this.ctx = ctx;
    this.o = options;
  }

  get maxImportBytes(): number {
    return this.o.maxImportBytes;
  }

  /** Carries something the store does not hold (the composition root attaches recordings). */
  attach(attachment: SandboxAttachment): void {
    this.attachments.push(attachment);
  }

  /** At start, before anything reads them: attachments follow the store after an import killed midway. */
  async recoverAttachments(): Promise<void> {
    const committed = this.ctx.db.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [
      LAST_IMPORT_KEY,
    ])?.value;
    for (const a of this.attachments) await a.recover(committed);
  }

  exportLines({ without = [], ...options }: ExportOptions): AsyncGenerator<string> {
    return sandboxLines(this.ctx.db, {
      ...options,
      generator: this.o.generator,
      attachments: this.attachments.filter((a) => !without.includes(a.name)),
    });
  }

  async read(
    input: Readable,
    totalBytes?: number,
    onProgress?: (f: number) => void,
    attachedOnly = false,
  ): Promise<ParsedSandbox> {
    try {
      return await readSandbox(input, {
        maxBytes: this.o.maxImportBytes,
        totalBytes,
        onProgress,
        attachedOnly,
      });
    } catch (err) {
      if (err instanceof SandboxFormatError) throw sandboxRefusal(err);
      throw err;
    }
  }

  async plan(parsed: ParsedSandbox, o: ImportOptions = {}): Promise<SandboxPlan> {
    try {
      const plan = planSandbox(this.ctx.db, parsed);
      for (const a of this.attachments) {
        const lines = parsed.attached.get(a.kind);
        if (!lines) continue;
        const p = await a.plan(lines, this.attachedImport(parsed, o));
        plan.tables[a.name] = p.counts;
        plan.items.push(...p.items);
      }
      const known = new Set(this.attachments.map((a) => a.kind));
      for (const kind of parsed.attached.keys()) if (!known.has(kind)) plan.unknownTables.push(kind);
      return plan;
    } catch (err) {
      if (err instanceof SandboxFormatError) throw sandboxRefusal(err);
      throw err;
    }
  }

  private attachedImport(parsed: ParsedSandbox, o: ImportOptions, importId = '') {
    return {
      replaceAll: o.replaceAll ?? false,
      onConflict: o.onConflict ?? 'keep',
      header: parsed.header,
      importId,
    };
  }

  private devicesNow(): Map<string, DeviceKeys> {
    const rows = this.ctx.db.all<{
      id: string;
      name: string;
      type: string | null;
      cid: string | null;
      value: string | null;
    }>(
      `SELECT d.id, d.name, c.credentials_type AS type, c.credentials_id AS cid, c.credentials_value AS value
       FROM devices d LEFT JOIN device_credentials c ON c.device_id = d.id`,
    );
    return new Map(
      rows.map((r) => [
        r.id,
        { name: r.name, token: r.cid, credentials: JSON.stringify([r.type, r.cid, r.value]) },
      ]),
    );
  }

  /**
   * Tells the transports which devices an import removed or gave other credentials: their open sessions
   * end (a device connected with a token the import took away must connect again).
   */
  private tellDevicesChanged(before: Map<string, DeviceKeys>): void {
    const after = this.devicesNow();
    for (const [deviceId, was] of before) {
      const now = after.get(deviceId);
      if (!now) this.ctx.events.emit('deviceDeleted', { deviceId, name: was.name });
      else if (now.credentials !== was.credentials)
        this.ctx.events.emit('credentialsChanged', {
          deviceId,
          oldToken: was.token,
          newToken: now.token ?? '',
        });
    }
  }

  /** Stages every attachment's lines (all checked first: a bad one refuses the file, nothing touched). */
  private async stage(
    parsed: ParsedSandbox,
    o: ImportOptions,
    importId: string,
  ): Promise<[SandboxAttachment, StagedAttachment][]> {
    const staged: [SandboxAttachment, StagedAttachment][] = [];
    try {
      for (const a of this.attachments) {
        const lines = parsed.attached.get(a.kind);
        if (lines || (o.replaceAll && parsed.header.includes[a.name as keyof SandboxHeader['includes']]))
          staged.push([a, await a.stage(lines ?? [], this.attachedImport(parsed, o, importId))]);
      }
      return staged;
    } catch (err) {
      await Promise.all(staged.map(([, s]) => s.abort()));
      if (err instanceof SandboxFormatError) throw sandboxRefusal(err);
      throw err;
    }
  }

  /** After the store's write: the attachments' staged files take their places. */
  private async commitStaged(staged: [SandboxAttachment, StagedAttachment][], result: SandboxImportResult) {
    for (const [a, s] of staged) {
      const done = await s.commit();
      result.tables[a.name] = done.written;
      result.kept += done.kept;
      result.renamed += done.renamed;
    }
  }

  /** Applies a read file (one at a time: 409 while another import runs). */
  async apply(parsed: ParsedSandbox, o: ImportOptions, job?: SandboxJob): Promise<SandboxImportResult> {
    if (this.busy) throw new PlatformError(409, 31, 'Another sandbox import is running; wait for it to end.');
    this.busy = true;
    try {
      if (job) job.phase = 'applying';
      const importId = randomUUID();
      const staged = await this.stage(parsed, o, importId);
      const before = this.devicesNow();
      const done = applySandbox(this.ctx.db, parsed, {
        importId,
        replaceAll: o.replaceAll ?? false,
        onConflict: o.onConflict ?? 'keep',
        keyId: (w, key) => this.ctx.telemetry.keyId(w, key),
        tenantId: this.ctx.tenantId,
      });
      if (job) {
        job.phase = 'saving';
        job.progress = 0.9;
      }
      const result = await done.catch(async (err: unknown) => {
        await Promise.all(staged.map(([, s]) => s.abort()));
        if (err instanceof SandboxFormatError) throw sandboxRefusal(err);
        throw new PlatformError(
          400,
          31,
          `The sandbox could not be imported, nothing was changed: ${(err as Error).message}`,
        );
      });
      await this.commitStaged(staged, result);
      this.ctx.events.emit('sandboxLoaded', { replacedAll: result.replacedAll });
      this.tellDevicesChanged(before);
      return result;
    } finally {
      this.busy = false;
    }
  }

  /** Starts applying a read file as a job; its progress is polled with job(id). */
  startJob(parsed: ParsedSandbox, o: ImportOptions): SandboxJob {
    if (this.busy) throw new PlatformError(409, 31, 'Another sandbox import is running; wait for it to end.');
    const job: SandboxJob = { id: randomUUID(), state: 'running', progress: 0.5, phase: 'applying' };
    this.jobs.set(job.id, job);
    while (this.jobs.size > KEPT_JOBS) this.jobs.delete(this.jobs.keys().next().value!);
    void this.apply(parsed, o, job).then(
      (result) => Object.assign(job, { state: 'done', progress: 1, phase: 'done', result }),
      (err: unknown) =>
        Object.assign(job, { state: 'failed', phase: 'failed', error: (err as Error).message }),
    );
    return job;
  }

  job(id: string): SandboxJob {
    const job = this.jobs.get(id);
    if (!job) throw new PlatformError(404, 32, `Sandbox import job [${id}] is not found`);
    return job;
  }

  private classStartPath(): string {
    if (!this.o.dataDir)
      throw new PlatformError(400, 31, 'This instance has no data directory for a class start');
    return join(this.o.dataDir, CLASS_START_FILE);
  }

  /** Saves the whole instance (history and passwords included) as the class start. */
  async saveClassStart(): Promise<ClassStartStatus> {
    const image = this.classStartPath().replace(CLASS_START_FILE, CLASS_START_IMAGE);
    await rm(image, { force: true });
    await writeLinesDurably(
      this.classStartPath(),
      this.exportLines({ history: true, includePasswords: true, title: 'Class start' }),
    );
    await this.ctx.db.saveImage(image);
    return this.classStartStatus();
  }

  classStartStatus(): ClassStartStatus {
    const currentCounts = sandboxCounts(this.ctx.db, { history: true, includePasswords: true });
    for (const a of this.attachments) currentCounts[a.name] = a.snapshot().count;
    const path = this.o.dataDir ? join(this.o.dataDir, CLASS_START_FILE) : undefined;
    if (!path || !existsSync(path)) return { saved: false, currentCounts };
    const st = statSync(path);
    const header = readHeaderSync(path);
    return {
      saved: true,
      savedAt: header?.exportedAt ?? st.mtimeMs,
      fileBytes: st.size,
      savedCounts: header?.counts,
      currentCounts,
    };
  }

  /** Makes the instance the class start again, exactly: everything else is dropped. */
  async resetToClassStart(): Promise<SandboxImportResult> {
    const path = this.classStartPath();
    if (!existsSync(path)) throw new PlatformError(404, 32, 'No class start is saved: save one first.');
    const image = path.replace(CLASS_START_FILE, CLASS_START_IMAGE);
    if (!existsSync(image)) return this.importFile(path, { replaceAll: true });
    if (this.busy) throw new PlatformError(409, 31, 'Another sandbox import is running; wait for it to end.');
    this.busy = true;
    const { history = 0, latest = 0, ...tables } = readHeaderSync(path)?.counts ?? {};
    const result = {
      tables,
      telemetryRows: history,
      latestRows: latest,
      renamed: 0,
      kept: 0,
      replacedAll: true,
    };
    const before = this.devicesNow();
    try {
      // the store comes from the image; what it does not hold (recordings) from the file's first lines
      const attached = await this.read(createReadStream(path), undefined, undefined, true);
      const importId = randomUUID();
      const staged = await this.stage(attached, { replaceAll: true }, importId);
      try {
        await this.ctx.db.replaceDatabase(image);
        await this.ctx.db.write((w) =>
          w.run('INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)', [LAST_IMPORT_KEY, importId]),
        );
      } catch (err) {
        await Promise.all(staged.map(([, s]) => s.abort()));
        throw err;
      }
      this.ctx.telemetry.reload();
      await this.commitStaged(staged, result);
    } finally {
      this.busy = false;
    }
    this.ctx.events.emit('sandboxLoaded', { replacedAll: true });
    this.tellDevicesChanged(before);
    return result;
  }

  async importFile(path: string, o: ImportOptions): Promise<SandboxImportResult> {
    const parsed = await this.read(createReadStream(path), statSync(path).size);
    return this.apply(parsed, o);
  }
}

/** The header of a sandbox file (its first line, within its first 1 MiB), without reading the rest. */
export function readHeaderSync(path: string): SandboxHeader | undefined {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(1 << 20);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf.subarray(0, n).toString('utf8');
    const nl = text.indexOf('\n');
    const value: unknown = JSON.parse(nl >= 0 ? text.slice(0, nl) : text);
    return headerIssues(value).length ? undefined : (value as SandboxHeader);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

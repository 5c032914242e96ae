import { createReadStream, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { configFromEnv } from '../config.ts';
import { thingsboardParts, writeThingsboardParts } from '../api/sandbox/thingsboard-parts.ts';
import { loadOrCreateSigningKey } from '../platform/auth/signing-key.ts';
import { migrations } from '../platform/migrations.ts';
import { writeLinesDurably } from '../platform/sandbox/sandbox-service.ts';
import { RuleChainService } from '../rule-engine/rule-chain-service.ts';
import { createNodeRegistry } from '../rule-engine/node-registry.ts';
import { lockDataDir } from '../store/data-dir-lock.ts';
import { DurableDb } from '../store/durable-db.ts';
import { openServices } from './domain.ts';

export const SANDBOX_USAGE = `Usage:
  sandboard sandbox export FILE --data-dir DIR [--history [--start-ts MS] [--end-ts MS]]
                               [--include-passwords] [--no-recordings] [--thingsboard OUTDIR]
  sandboard sandbox import FILE --data-dir DIR [--dry-run] [--replace-all] [--on-conflict keep|replace|rename]

Exports a stopped Sandboard's data directory as one sandbox file (JSON Lines; FILE ending in .gz is
gzipped), or imports one into it, all or nothing (docs/sandboxes.md). The file carries the
recordings (DATA_DIR/recordings) unless --no-recordings. --thingsboard OUTDIR also writes
the parts ThingsBoard imports (rule chains, dashboards, profiles, devices.csv) as separate files.
Import prints the plan (new, replaced, conflicting entities); --dry-run stops there.
Exit code: 0 done, 1 refused (the message names the line and JSON path), 2 wrong arguments, 3 the data
directory is in use (stop the running Sandboard first).
`;

export class SandboxUsageError extends Error {}

const time = (v: string | undefined, name: string) => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new SandboxUsageError(`--${name} must be a time in ms, got '${v}'`);
  return n;
};

export async function runSandboxCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      'data-dir': { type: 'string' },
      history: { type: 'boolean' },
      'start-ts': { type: 'string' },
      'end-ts': { type: 'string' },
      'include-passwords': { type: 'boolean' },
      'no-recordings': { type: 'boolean' },
      thingsboard: { type: 'string' },
      'dry-run': { type: 'boolean' },
      'replace-all': { type: 'boolean' },
      'on-conflict': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: true,
  });
  if (values.help) {
    process.stdout.write(SANDBOX_USAGE);
    return 0;
  }
  const [verb, file] = positionals;
  if ((verb !== 'export' && verb !== 'import') || !file || positionals.length > 2)
    throw new SandboxUsageError('Say sandbox export FILE or sandbox import FILE');
  const onConflict = values['on-conflict'] ?? 'keep';
  if (onConflict !== 'keep' && onConflict !== 'replace' && onConflict !== 'rename')
    throw new SandboxUsageError(`--on-conflict must be keep, replace or rename, got '${onConflict}'`);
  const config = { ...configFromEnv(process.env), logLevel: 'silent' as const };
  const dataDir = resolve(values['data-dir'] ?? config.dataDir);
  const lock = await lockDataDir(dataDir);
  const db = await DurableDb.open({ dir: dataDir, migrations });
  try {
    const services = await openServices(db, loadOrCreateSigningKey(dataDir), {
      ...config,
      dataDir,
      sandboxImportMaxBytes: config.sandboxImportMaxBytes,
    });
    const sandbox = services.sandbox;
    const path = resolve(file);
    if (verb === 'export') {
      const ruleChains = new RuleChainService(services.ctx, createNodeRegistry());
      const parts = thingsboardParts(services, ruleChains);
      const lines = sandbox.exportLines({
        history: values.history ?? false,
        ...(values.history
          ? { startTs: time(values['start-ts'], 'start-ts'), endTs: time(values['end-ts'], 'end-ts') }
          : {}),
        includePasswords: values['include-passwords'] ?? false,
        without: values['no-recordings'] ? ['recordings'] : [],
        thingsboard: parts,
      });
      const bytes = await writeLinesDurably(path, lines, { gzip: path.endsWith('.gz') });
      process.stdout.write(`Wrote ${path} (${(bytes / 1e6).toFixed(1)} MB)\n`);
      if (values.thingsboard) {
        const written = writeThingsboardParts(resolve(values.thingsboard), parts);
        process.stdout.write(
          `Wrote ${written.length} ThingsBoard files under ${resolve(values.thingsboard)}\n`,
        );
      }
      return 0;
    }
    const parsed = await sandbox.read(createReadStream(path), statSync(path).size);
    const options = { replaceAll: values['replace-all'] ?? false, onConflict } as const;
    const plan = await sandbox.plan(parsed, options);
    for (const [table, c] of Object.entries(plan.tables))
      process.stdout.write(`${table}: ${c.new} new, ${c.replace} replaced, ${c.conflict} conflicting\n`);
    process.stdout.write(`telemetry: ${plan.telemetryRows} history rows, ${plan.latestRows} latest values\n`);
    if (plan.unknownTables.length)
      process.stdout.write(`skipped (unknown here): ${plan.unknownTables.join(', ')}\n`);
    if (values['dry-run']) return 0;
    const result = await sandbox.apply(parsed, options);
    const { recordings = 0, ...tables } = result.tables;
    const rows = Object.values(tables).reduce((a, b) => a + b, 0);
    process.stdout.write(
      `Imported ${rows} rows, ${result.telemetryRows} telemetry rows and ${recordings} recordings (${result.renamed} renamed, ${result.kept} kept as they were)\n`,
    );
    return 0;
  } finally {
    await db.close();
    lock.release();
  }
}

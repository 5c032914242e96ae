/**
 * Child process for bench:startup: `node journal-filler.ts <dataDir> <bytes>` opens the store of a data dir
 * the platform has already initialised and writes gateway-shaped telemetry (10 devices x 3 keys per write,
 * 16 writes in flight, as MQTT ingest does) until the journal holds `bytes`, then prints `filled <bytes>
 * <writes>` and waits to be killed. It never snapshots (bytes stays under the threshold).
 */
import { lockDataDir } from '../../main/store/data-dir-lock.ts';
import { DurableDb } from '../../main/store/durable-db.ts';
import { migrations } from '../../main/platform/migrations.ts';
import { TelemetryRepository } from '../../main/platform/telemetry-repository.ts';

const [dir, bytesArg] = process.argv.slice(2);
if (!dir || !bytesArg) {
  process.stderr.write('usage: journal-filler.ts <dataDir> <bytes>\n');
  process.exit(2);
}
const target = Number(bytesArg);
await lockDataDir(dir);
const db = await DurableDb.open({ dir, migrations });
const telemetry = new TelemetryRepository(db);
const base = Date.now() - 86_400_000;
let writes = 0;
let stopped = false;
await new Promise<void>((resolve) => {
  let inFlight = 0;
  const issue = (): void => {
    const n = writes++;
    inFlight++;
    db.write((w) => {
      for (let d = 0; d < 10; d++) {
        const ts = base + n * 10;
        telemetry.save(w, 1_000 + ((n * 10 + d) % 1_000), [
          { ts, values: { temperature: 20 + (n % 50) / 10, humidity: 40 + (d % 7), pressure: 1000 + n } },
        ]);
      }
    }).then(
      () => {
        inFlight--;
        if (stopped) return;
        if (db.getStats().journalBytes >= target) {
          stopped = true;
          resolve();
        } else while (inFlight < 16) issue();
      },
      (err: unknown) => {
        process.stderr.write(`${(err as Error).stack}\n`);
        process.exit(3);
      },
    );
  };
  while (inFlight < 16) issue();
});
await db.flush();
process.stdout.write(`filled ${db.getStats().journalBytes} ${writes}\n`);
setInterval(() => {}, 60_000);

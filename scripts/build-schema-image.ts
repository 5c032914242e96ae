// npm run build:schema-image: runs the platform's migrations on a new store and writes the database they
// build to main/platform/schema-image.sqlite.gz, which a new data directory then starts from (run it after
// adding a migration; test/main/platform/schema-image.test.ts says when it is due).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { migrations } from '../main/platform/migrations.ts';
import { SCHEMA_IMAGE_URL } from '../main/platform/schema-image.ts';
import { DurableDb } from '../main/store/durable-db.ts';
import { exportSchemaImage } from '../main/store/schema-image.ts';

const dir = mkdtempSync(join(tmpdir(), 'sandboard-schema-image-'));
try {
  const db = await DurableDb.open({ dir, migrations });
  const image = exportSchemaImage(db.raw);
  await db.close();
  const gz = gzipSync(image, { level: 9 });
  writeFileSync(SCHEMA_IMAGE_URL, gz);
  process.stdout.write(
    `build:schema-image: ${migrations.length} migrations, ${image.length} bytes (${gz.length} gzipped)\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/** Where the platform's schema image is (npm run build:schema-image writes it from the migrations). */
export const SCHEMA_IMAGE_URL = new URL('./schema-image.sqlite.gz', import.meta.url);

/**
 * The database migrations.ts builds on a new store, prebuilt (test/main/platform/schema-image.test.ts
 * fails when it differs from running them); null when the file is missing.
 */
export function loadSchemaImage(): Uint8Array | null {
  let gz: Buffer;
  try {
    gz = readFileSync(SCHEMA_IMAGE_URL);
  } catch {
    return null;
  }
  return gunzipSync(gz);
}

import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { initialJs } from './support/initial-js.ts';

const DIST = fileURLToPath(new URL('../renderer/dist/', import.meta.url));
const BUDGET_GZIP_BYTES = 400 * 1024;

test('the login page loads at most 400 KB of gzipped JavaScript', async () => {
  const testInfo = test.info();
  const js = initialJs(DIST);
  const report = js.files.map((f) => `${f.file}: ${f.bytes} B, ${f.gzipBytes} B gzipped`).join('\n');
  await testInfo.attach('initial-js', {
    body: `${report}\ntotal: ${js.gzipBytes} B gzipped\n`,
    contentType: 'text/plain',
  });
  console.log(
    `login page initial JS: ${(js.gzipBytes / 1024).toFixed(1)} KB gzipped in ${js.files.length} files`,
  );
  expect(js.files.length).toBeGreaterThan(0);
  expect(js.gzipBytes).toBeLessThanOrEqual(BUDGET_GZIP_BYTES);
});

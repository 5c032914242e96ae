import { describe, it } from 'vitest';
import { startTestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { createDevice, expectTbError, withLoginPair } from './api-kit.ts';

/** What adds data without going through the device or telemetry writes: refused like them when the store is full. */
describe('a full store', () => {
  it('refuses a bulk import and a persistent RPC with 507', async () => {
    const dataDir = tempDir();
    const first = withLoginPair(await startTestPlatform({ dataDir }));
    const device = await createDevice(first, await first.login(), { name: 'full-store-device' });
    await first.stop();
    // a budget the store is over from the start, with no telemetry to drop
    const p = withLoginPair(await startTestPlatform({ dataDir, storeBudgetBytes: 1 }));
    const token = await p.login();
    await expectTbError(
      await p.http('/api/device/bulk_import', {
        method: 'POST',
        token,
        json: { file: 'full-store-import', mapping: { columns: [{ type: 'NAME' }] } },
      }),
      507,
      2,
      'The store is full',
    );
    await expectTbError(
      await p.http(`/api/rpc/twoway/${device.id.id}`, {
        method: 'POST',
        token,
        json: { method: 'later', persistent: true, timeout: 60_000 },
      }),
      507,
      2,
      'The store is full',
    );
  });
});

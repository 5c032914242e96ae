// In the desktop app, a core that had to take other ports than 8080 / 1883 / 8888 is announced in a
// banner on every page, and the banner follows the core's status (gone once it has the usual ports).
// The desktop bridge (window.sandboard, the preload's) is played by a script with the same shape.
import type { CoreStatus } from '../shared/desktop-bridge.ts';
import { expect, logIn, openFromNav, test } from './support/fixtures.ts';

const NOTICE =
  'Sandboard runs on other ports than usual: MQTT on 41883 (1883 is held by another program). ' +
  'Devices and clients aimed at the usual ports reach that other program, not Sandboard.';

test('the window says when the core runs on other ports than usual', async ({ page }) => {
  await page.addInitScript((notice: string) => {
    const listeners: ((s: CoreStatus) => void)[] = [];
    const status = (portNotice: string | null): CoreStatus => ({
      state: 'ready',
      urls: { http: location.origin, mqtt: 'mqtt://127.0.0.1:41883', analytics: '', dataDir: '/d' },
      restarts: 0,
      message: null,
      since: Date.now(),
      portNotice,
    });
    const w = window as unknown as Record<string, unknown>;
    w.sandboard = {
      coreStatus: async () => status(notice),
      onCoreStatus: (listener: (s: CoreStatus) => void) => {
        listeners.push(listener);
        return () => undefined;
      },
    };
    w.sandboardTest = { usualPorts: () => listeners.forEach((l) => l(status(null))) };
  }, NOTICE);
  await logIn(page);
  const banner = page.getByTestId('ports-banner');
  await expect(banner).toContainText('MQTT on 41883 (1883 is held by another program)');
  await openFromNav(page, 'devices');
  await expect(banner).toContainText('Other ports than usual');
  await page.evaluate(() =>
    (window as unknown as { sandboardTest: { usualPorts(): void } }).sandboardTest.usualPorts(),
  );
  await expect(banner).toHaveCount(0);
});

test('a plain browser shows no ports banner', async ({ page }) => {
  await logIn(page);
  await expect(page.getByTestId('ports-banner')).toHaveCount(0);
});

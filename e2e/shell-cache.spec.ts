// The desktop window from its second launch on. The shell (electron/main/security.ts) sends a nonce with
// every request to the core and refuses a response without HMAC(launch secret, nonce); a new launch has a
// new secret. Chromium hands such a check a cached response's *stored* headers, so a cached asset fails it
// and the app's own scripts are refused: a blank window. Here the same check runs inside a real Chromium
// (its DevTools Fetch domain sees cached responses as Electron's webRequest does), the UI is loaded, the
// core restarted with a new secret on the same port, and the UI loaded again in the same browser session.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { SHELL_PROOF } from '../electron/ipc-contract.ts';
import { newNonce, responseProven } from '../electron/main/response-proof.ts';

const BIN = fileURLToPath(new URL('../bin/sandboard.js', import.meta.url));

interface Core {
  child: ChildProcess;
  http: string;
}

async function startCore(dataDir: string, httpPort: number, secret: string): Promise<Core> {
  const ports = ['--http-port', String(httpPort), '--mqtt-port', '0', '--analytics-port', '0'];
  const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', dataDir, ...ports], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SANDBOARD_LOG_LEVEL: 'warn', [SHELL_PROOF.secretEnv]: secret },
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const http = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /^sandboard ready (\{.*\})$/.exec(line);
      if (m) resolve((JSON.parse(m[1]!) as { http: string }).http);
    });
    child.once('exit', (code) => reject(new Error(`sandboard serve exited (${code}): ${stderr}`)));
  });
  return { child, http };
}

async function stopCore(core: Core): Promise<void> {
  if (core.child.exitCode !== null) return;
  const exited = once(core.child, 'exit');
  core.child.kill('SIGTERM');
  await exited;
}

/**
 * Applies the shell's check to every request of `page` to `origin`: a nonce out, the proof checked on
 * the way back; a response that fails is refused (as the shell cancels it). Returns the refused URLs.
 */
async function asTheShell(page: Page, origin: string, secret: string): Promise<string[]> {
  const refused: string[] = [];
  const nonces = new Map<string, string>();
  const cdp = await page.context().newCDPSession(page);
  cdp.on('Fetch.requestPaused', (event) => {
    void (async () => {
      const { requestId, request, responseStatusCode, responseHeaders } = event;
      if (responseStatusCode === undefined) {
        const nonce = newNonce();
        nonces.set(requestId, nonce);
        const headers = Object.entries({ ...request.headers, [SHELL_PROOF.nonceHeader]: nonce });
        await cdp.send('Fetch.continueRequest', {
          requestId,
          headers: headers.map(([name, value]) => ({ name, value })),
        });
        return;
      }
      const headers = Object.fromEntries((responseHeaders ?? []).map((h) => [h.name, h.value]));
      const nonce = nonces.get(requestId);
      nonces.delete(requestId);
      if (responseProven(secret, nonce, headers)) await cdp.send('Fetch.continueRequest', { requestId });
      else {
        refused.push(request.url);
        await cdp.send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' });
      }
    })().catch(() => undefined /* the page went away */);
  });
  await cdp.send('Fetch.enable', {
    patterns: [
      { urlPattern: `${origin}/*`, requestStage: 'Request' },
      { urlPattern: `${origin}/*`, requestStage: 'Response' },
    ],
  });
  return refused;
}

test('the app renders at every launch, each with a new secret (nothing cached carries an old proof)', async ({
  browser,
}) => {
  test.setTimeout(180_000); // two core starts
  const dataDir = mkdtempSync(join(tmpdir(), 'sandboard-e2e-'));
  const context = await browser.newContext(); // one browser session, one HTTP cache, as the app's
  let core = await startCore(dataDir, 0, 'first-launch-secret');
  const port = Number(new URL(core.http).port);
  try {
    for (const secret of ['first-launch-secret', 'second-launch-secret']) {
      if (secret !== 'first-launch-secret') {
        await stopCore(core);
        core = await startCore(dataDir, port, secret);
      }
      const page = await context.newPage();
      const refused = await asTheShell(page, core.http, secret);
      await page.goto(core.http);
      await expect(page.getByRole('button', { name: 'Log in' }), secret).toBeVisible();
      expect(refused, secret).toEqual([]);
      await page.close();
    }
  } finally {
    await context.close();
    await stopCore(core);
    rmSync(dataDir, { recursive: true, force: true });
  }
});

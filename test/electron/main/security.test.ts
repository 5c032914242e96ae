import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Session, WebContents } from 'electron';
import { shellProof } from '../../../main/api/shell-proof.ts';
import { SHELL_PROOF } from '../../../electron/ipc-contract.ts';
import {
  buildCsp,
  expectedProof,
  hardenSession,
  hardenWebContents,
  isAllowedRequest,
  setupSecurity,
  type SecurityDeps,
} from '../../../electron/main/security.ts';
import {
  app,
  fakeEvent,
  FakeSession,
  FakeWebContents,
  resetFakeElectron,
  session,
} from '../fake-electron.ts';

vi.mock('electron', () => import('../fake-electron.ts'));

const CORE = 'http://127.0.0.1:8080';
const ANALYTICS = 'http://127.0.0.1:8888';
let opened: string[];
let deps: SecurityDeps;

beforeEach(() => {
  resetFakeElectron();
  opened = [];
  deps = {
    coreOrigin: () => CORE,
    allowedOrigins: () => new Set([CORE, ANALYTICS]),
    openExternal: (url) => opened.push(url),
  };
});

function hardened(): FakeWebContents {
  const contents = new FakeWebContents();
  hardenWebContents(contents as unknown as WebContents, deps);
  return contents;
}

describe('navigation', () => {
  it('stays on the core origin', () => {
    const contents = hardened();
    const event = fakeEvent(`${CORE}/devices?page=2`);
    contents.emit('will-navigate', event);
    expect(event.defaultPrevented()).toBe(false);
  });

  it('denies navigation away and sends http(s) links to the OS browser', () => {
    const contents = hardened();
    const away = fakeEvent('https://thingsboard.io/docs/');
    contents.emit('will-navigate', away);
    expect(away.defaultPrevented()).toBe(true);
    expect(opened).toEqual(['https://thingsboard.io/docs/']);
  });

  it('denies other schemes without opening them anywhere', () => {
    const contents = hardened();
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'chrome://settings',
      'http://u:p@evil.example/',
    ]) {
      const event = fakeEvent(url);
      contents.emit('will-navigate', event);
      expect(event.defaultPrevented()).toBe(true);
    }
    expect(opened).toEqual([]);
  });

  it('treats another port on the same host as a foreign origin', () => {
    const contents = hardened();
    const event = fakeEvent('http://127.0.0.1:9999/');
    contents.emit('will-navigate', event);
    expect(event.defaultPrevented()).toBe(true);
    expect(opened).toEqual(['http://127.0.0.1:9999/']);
  });

  it('denies redirects off the core origin', () => {
    const contents = hardened();
    const event = fakeEvent('https://evil.example/');
    contents.emit('will-redirect', event);
    expect(event.defaultPrevented()).toBe(true);
    expect(opened).toEqual([]);
  });

  it('keeps frames on the core without opening anything', () => {
    const contents = hardened();
    const explorer = fakeEvent(`${CORE}/swagger-ui/`);
    contents.emit('will-frame-navigate', explorer);
    expect(explorer.defaultPrevented()).toBe(false);
    const away = fakeEvent('https://evil.example/');
    contents.emit('will-frame-navigate', away);
    expect(away.defaultPrevented()).toBe(true);
    expect(opened).toEqual([]);
  });

  it('denies every new window; http(s) ones open in the OS browser', () => {
    const contents = hardened();
    expect(contents.windowOpenHandler?.({ url: 'https://github.com/thingsboard' })).toEqual({
      action: 'deny',
    });
    expect(contents.windowOpenHandler?.({ url: `${CORE}/swagger-ui/` })).toEqual({ action: 'deny' });
    expect(contents.windowOpenHandler?.({ url: 'file:///etc/hosts' })).toEqual({ action: 'deny' });
    expect(opened).toEqual(['https://github.com/thingsboard', `${CORE}/swagger-ui/`]);
  });

  it('refuses to attach webviews', () => {
    const contents = hardened();
    const event = fakeEvent();
    contents.emit('will-attach-webview', event);
    expect(event.defaultPrevented()).toBe(true);
  });

  it('hardens every web contents the app creates and sandboxes all renderers', () => {
    setupSecurity(deps);
    expect(app.enableSandbox).toHaveBeenCalled();
    const contents = new FakeWebContents();
    app.emit('web-contents-created', {}, contents);
    expect(contents.windowOpenHandler).not.toBeNull();
  });

  it("empties the session's HTTP cache at launch (a stored response's proof is an earlier launch's)", async () => {
    setupSecurity(deps);
    await vi.waitFor(() => expect(session.defaultSession.cacheCleared).toBe(1));
    expect(session.defaultSession.beforeSendHeaders).not.toBeNull();
  });
});

describe('session', () => {
  function hardenedSession(): FakeSession {
    const ses = new FakeSession();
    hardenSession(ses as unknown as Session, deps);
    return ses;
  }

  it('denies permission requests (clipboard writes from the core excepted)', () => {
    const ses = hardenedSession();
    const fromCore = { getURL: () => `${CORE}/` };
    const answers: boolean[] = [];
    for (const permission of ['media', 'geolocation', 'notifications', 'openExternal', 'clipboard-read'])
      ses.permissionRequest?.(fromCore, permission, (ok) => answers.push(ok));
    expect(answers).toEqual([false, false, false, false, false]);
    ses.permissionRequest?.(fromCore, 'clipboard-sanitized-write', (ok) => answers.push(ok));
    ses.permissionRequest?.({ getURL: () => 'https://evil.example/' }, 'clipboard-sanitized-write', (ok) =>
      answers.push(ok),
    );
    expect(answers.slice(5)).toEqual([true, false]);
    expect(ses.permissionCheck?.(null, 'media', CORE)).toBe(false);
    expect(ses.devicePermission?.()).toBe(false);
  });

  it('blocks every request that is not for the core', () => {
    const ses = hardenedSession();
    const cancelled = (url: string) => {
      let result: { cancel?: boolean } = {};
      ses.beforeRequest?.({ url }, (r) => (result = r));
      return result.cancel;
    };
    expect(cancelled(`${CORE}/assets/index.js`)).toBe(false);
    expect(cancelled('ws://127.0.0.1:8080/api/ws')).toBe(false);
    expect(cancelled(`${ANALYTICS}/api/report`)).toBe(false);
    expect(cancelled('data:image/png;base64,AAAA')).toBe(false);
    expect(cancelled('https://cdn.example.com/lib.js')).toBe(true);
    expect(cancelled('http://127.0.0.1:9000/')).toBe(true);
    expect(cancelled('file:///etc/passwd')).toBe(true);
  });

  it("adds the app's CSP to the core's responses, beside the core's own", () => {
    const ses = hardenedSession();
    let headers: Record<string, string[]> | undefined;
    ses.headersReceived?.(
      { url: `${CORE}/`, responseHeaders: { 'content-security-policy': ["frame-ancestors 'self'"] } },
      (r) => (headers = r.responseHeaders),
    );
    const csp = headers?.['content-security-policy'];
    expect(csp?.[0]).toBe("frame-ancestors 'self'");
    expect(csp?.[1]).toContain("script-src 'self'");
    expect(csp?.[1]).toContain('ws://127.0.0.1:8080');
    expect(csp?.[1]).toContain("object-src 'none'");
  });

  it("sends nothing to the core's origins while the core is not ready (another process may hold its port)", () => {
    let ready = false;
    deps = { ...deps, coreReady: () => ready };
    const ses = hardenedSession();
    const cancelled = (url: string) => {
      let result: { cancel?: boolean } = {};
      ses.beforeRequest?.({ url }, (r) => (result = r));
      return result.cancel;
    };
    expect(cancelled(`${CORE}/api/auth/user`)).toBe(true);
    expect(cancelled('ws://127.0.0.1:8080/api/ws')).toBe(true);
    expect(cancelled(`${ANALYTICS}/apiTrendz/publicApi/buildReport`)).toBe(true);
    expect(cancelled('data:image/png;base64,AAAA')).toBe(false);
    ready = true;
    expect(cancelled(`${CORE}/api/auth/user`)).toBe(false);
  });

  it("trusts a response only with this launch's proof of the nonce the shell sent", () => {
    let secret: string | null = 'launch-secret-1';
    deps = { ...deps, proofSecret: () => secret };
    const ses = hardenedSession();
    let id = 0;
    const send = (url: string) => {
      let headers: Record<string, string> = {};
      const details = { id: ++id, url, requestHeaders: { Accept: '*/*' } };
      ses.beforeSendHeaders?.(details, (r) => (headers = r.requestHeaders ?? details.requestHeaders));
      return { id: details.id, nonce: headers[SHELL_PROOF.nonceHeader] };
    };
    const receive = (request: { id: number }, url: string, proof?: string) => {
      let result: { cancel?: boolean; responseHeaders?: Record<string, string[]> } = {};
      const responseHeaders: Record<string, string[]> = proof ? { [SHELL_PROOF.proofHeader]: [proof] } : {};
      ses.headersReceived?.({ id: request.id, url, responseHeaders }, (r) => (result = r));
      return result;
    };

    const good = send(`${CORE}/assets/index.js`);
    expect(good.nonce).toMatch(/^[\w-]{22}$/);
    const accepted = receive(good, `${CORE}/assets/index.js`, expectedProof('launch-secret-1', good.nonce!));
    expect(accepted.cancel).toBeUndefined();
    expect(accepted.responseHeaders?.['Content-Security-Policy']?.[0]).toContain("script-src 'self'");

    // an impostor on the port: no proof, a proof replayed from another response, a proof of another launch
    const none = send(`${CORE}/assets/index.js`);
    expect(receive(none, `${CORE}/assets/index.js`).cancel).toBe(true);
    const replayed = send(`${CORE}/`);
    expect(receive(replayed, `${CORE}/`, expectedProof('launch-secret-1', good.nonce!)).cancel).toBe(true);
    const otherLaunch = send('ws://127.0.0.1:8080/api/ws');
    expect(
      receive(otherLaunch, 'ws://127.0.0.1:8080/api/ws', expectedProof('launch-secret-0', otherLaunch.nonce!))
        .cancel,
    ).toBe(true);
    // each nonce is fresh
    expect(new Set([good.nonce, none.nonce, replayed.nonce, otherLaunch.nonce]).size).toBe(4);
    // no nonce goes anywhere but the core
    expect(send('https://thingsboard.io/').nonce).toBeUndefined();
    // no secret (a plain browser session or tests): responses are not checked
    secret = null;
    expect(receive(send(`${CORE}/`), `${CORE}/`).cancel).toBeUndefined();
  });

  it("agrees with the core on the proof's form", () => {
    expect(shellProof('s3cret', 'nonce-1')).toBe(expectedProof('s3cret', 'nonce-1'));
  });

  it('builds a CSP without inline scripts or remote hosts', () => {
    const csp = buildCsp(new Set([CORE]));
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(csp).toContain(`connect-src 'self' ${CORE} ws://127.0.0.1:8080`);
    expect(isAllowedRequest('wss://127.0.0.1:8080/', new Set([CORE]))).toBe(false);
  });
});

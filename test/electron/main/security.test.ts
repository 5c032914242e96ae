import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Session, WebContents } from 'electron';
import {
  buildCsp,
  hardenSession,
  hardenWebContents,
  isAllowedRequest,
  setupSecurity,
  type SecurityDeps,
} from '../../../electron/main/security.ts';
import { app, fakeEvent, FakeSession, FakeWebContents, resetFakeElectron } from '../fake-electron.ts';

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

  it('builds a CSP without inline scripts or remote hosts', () => {
    const csp = buildCsp(new Set([CORE]));
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(csp).toContain(`connect-src 'self' ${CORE} ws://127.0.0.1:8080`);
    expect(isAllowedRequest('wss://127.0.0.1:8080/', new Set([CORE]))).toBe(false);
  });
});

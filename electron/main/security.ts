// Hardening for every web page the app shows: windows only ever load the core's origin; navigation and
// new windows elsewhere are denied (http(s) links go to the OS browser); no permissions; no remote
// content; a CSP on top of the one the core sends; the core's origin trusted only while the core is
// ready, and each of its responses proven to be the core's (a per-launch secret, see SHELL_PROOF).
import {
  app,
  session,
  type OnBeforeRequestListenerDetails,
  type OnBeforeSendHeadersListenerDetails,
  type OnHeadersReceivedListenerDetails,
  type Session,
  type WebContents,
} from 'electron';
import { SHELL_PROOF } from '../ipc-contract.ts';
import { expectedProof, newNonce, responseProven } from './response-proof.ts';

export { expectedProof };

export interface SecurityDeps {
  /** the core's UI origin (http://127.0.0.1:8080), null until it is ready */
  coreOrigin: () => string | null;
  /** every origin of the core's HTTP servers (UI + REST, analytics) */
  allowedOrigins: () => ReadonlySet<string>;
  openExternal: (url: string) => unknown;
  /** false while the core starts, restarts or is gone: then nothing is sent to its origins */
  coreReady?: () => boolean;
  /** the running core's per-launch secret; null: responses are not checked (no core of ours to prove) */
  proofSecret?: () => string | null;
}

const MAX_PENDING_NONCES = 10_000;

const MAX_URL_LENGTH = 4096;
const LOCAL_SCHEMES = new Set(['data:', 'blob:', 'devtools:', 'chrome-extension:', 'about:']);

/** The URL, normalised, if it is an http(s) link the OS browser may open; otherwise null. */
export function toExternalHttpUrl(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length > MAX_URL_LENGTH || !URL.canParse(raw)) return null;
  const url = new URL(raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) return null;
  return url.href;
}

function originOf(raw: string): string | null {
  if (!URL.canParse(raw)) return null;
  const url = new URL(raw);
  // ws(s) connections to the core count as its http(s) origin.
  if (url.protocol === 'ws:' || url.protocol === 'wss:')
    url.protocol = url.protocol === 'ws:' ? 'http:' : 'https:';
  return url.origin === 'null' ? null : url.origin;
}

/** True when `url` is on the core's UI origin. */
export function isCoreUrl(url: string, coreOrigin: string | null): boolean {
  return coreOrigin !== null && originOf(url) === coreOrigin;
}

/** What a page may request: the core's origins (http and ws) and local schemes; nothing remote. */
export function isAllowedRequest(url: string, allowedOrigins: ReadonlySet<string>): boolean {
  if (!URL.canParse(url)) return false;
  if (LOCAL_SCHEMES.has(new URL(url).protocol)) return true;
  const origin = originOf(url);
  return origin !== null && allowedOrigins.has(origin);
}

/** The CSP the app adds to the core's responses (the core sends its own too; browsers enforce both). */
export function buildCsp(allowedOrigins: ReadonlySet<string>): string {
  const connect = [...allowedOrigins].flatMap((o) => [o, o.replace(/^http/, 'ws')]);
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self' ${connect.join(' ')}`.trim(),
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
}

/** Denies navigation away from the core and every new window; http(s) links open in the OS browser. */
export function hardenWebContents(contents: WebContents, deps: SecurityDeps): void {
  const open = (url: string) => {
    const external = toExternalHttpUrl(url);
    if (external) void Promise.resolve(deps.openExternal(external)).catch(() => undefined);
  };
  contents.on('will-navigate', (event) => {
    if (isCoreUrl(event.url, deps.coreOrigin())) return;
    event.preventDefault();
    open(event.url);
  });
  // Frames (the embedded API explorer) stay on the core too; they never open the browser by themselves.
  contents.on('will-frame-navigate', (event) => {
    if (!isCoreUrl(event.url, deps.coreOrigin()) && !event.url.startsWith('about:')) event.preventDefault();
  });
  contents.on('will-redirect', (event) => {
    if (!isCoreUrl(event.url, deps.coreOrigin())) event.preventDefault();
  });
  contents.setWindowOpenHandler(({ url }) => {
    open(url);
    return { action: 'deny' };
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/**
 * Denies every permission request (camera, notifications, geolocation, ...) except writing text to the
 * clipboard from the core's own page (copy buttons for tokens and credentials), blocks requests to
 * anything but the core, and adds the CSP.
 */
export function hardenSession(ses: Session, deps: SecurityDeps): void {
  ses.setPermissionRequestHandler((contents, permission, callback) => {
    callback(permission === 'clipboard-sanitized-write' && isCoreUrl(contents.getURL(), deps.coreOrigin()));
  });
  ses.setPermissionCheckHandler((_contents, permission, requestingOrigin) => {
    return permission === 'clipboard-sanitized-write' && isCoreUrl(requestingOrigin, deps.coreOrigin());
  });
  ses.setDevicePermissionHandler(() => false);
  const toCore = (url: string) => {
    const origin = originOf(url);
    return origin !== null && deps.allowedOrigins().has(origin);
  };
  ses.webRequest.onBeforeRequest((details: OnBeforeRequestListenerDetails, callback) => {
    // While the core restarts another process may hold its port: it gets no request (and no token).
    const notReady = toCore(details.url) && deps.coreReady?.() === false;
    callback({ cancel: notReady || !isAllowedRequest(details.url, deps.allowedOrigins()) });
  });
  const nonces = new Map<number, string>();
  ses.webRequest.onBeforeSendHeaders((details: OnBeforeSendHeadersListenerDetails, callback) => {
    if (!deps.proofSecret?.() || !toCore(details.url)) {
      callback({});
      return;
    }
    if (nonces.size >= MAX_PENDING_NONCES) nonces.delete(nonces.keys().next().value!);
    const nonce = newNonce();
    nonces.set(details.id, nonce);
    callback({ requestHeaders: { ...details.requestHeaders, [SHELL_PROOF.nonceHeader]: nonce } });
  });
  ses.webRequest.onHeadersReceived((details: OnHeadersReceivedListenerDetails, callback) => {
    const allowed = deps.allowedOrigins();
    const origin = originOf(details.url);
    const nonce = nonces.get(details.id);
    nonces.delete(details.id);
    if (origin === null || !allowed.has(origin)) {
      callback({});
      return;
    }
    const secret = deps.proofSecret?.() ?? null;
    if (secret !== null) {
      if (!responseProven(secret, nonce, details.responseHeaders)) {
        process.stderr.write(`refused a response from ${origin} that is not the core's: ${details.url}\n`);
        callback({ cancel: true });
        return;
      }
    }
    if (!details.responseHeaders) {
      callback({});
      return;
    }
    const headers = { ...details.responseHeaders };
    const key = Object.keys(headers).find((k) => k.toLowerCase() === 'content-security-policy');
    const csp = buildCsp(allowed);
    if (key) headers[key] = [...(headers[key] ?? []), csp];
    else headers['Content-Security-Policy'] = [csp];
    callback({ responseHeaders: headers });
  });
}

/** Sandboxes every renderer and hardens each web contents and the default session. */
export function setupSecurity(deps: SecurityDeps): void {
  app.enableSandbox();
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, deps));
  void app.whenReady().then(() => {
    hardenSession(session.defaultSession, deps);
    // a response cached by an earlier launch carries a proof for that launch's secret: start empty
    void session.defaultSession.clearCache().catch(() => undefined);
  });
}

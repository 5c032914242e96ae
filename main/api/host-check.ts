import { isIPv6 } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { ErrorCode } from '../platform/errors.ts';
import { sendError } from './errors.ts';

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/** The Host header values this server answers: loopback, and the machine's own names when bound wider. */
export function allowedHosts(bindHost: string, extra: string[]): Set<string> {
  const key = (name: string) => parseHostHeader(isIPv6(name) ? `[${name}]` : name) ?? name.toLowerCase();
  const hosts = new Set([...LOOPBACK, key(bindHost), ...extra.map(key)]);
  if (bindHost === '0.0.0.0' || bindHost === '::') {
    hosts.add(hostname().toLowerCase());
    for (const list of Object.values(networkInterfaces())) {
      for (const addr of list ?? []) hosts.add(key(addr.address));
    }
  }
  return hosts;
}

/** Allowed Host header values (exact text) remembered at most; others are parsed on every request. */
const MAX_REMEMBERED_HOSTS = 64;

const PORT = /^\d{0,5}$/;
/** RFC 3986 reg-name (unreserved, pct-encoded, sub-delims) — no "@", "/", "\\", spaces or brackets. */
const REG_NAME = /^(?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})+$/;

/**
 * The host of a Host header as RFC 9110 (7.2) defines it: uri-host [ ":" port ], where uri-host is an
 * IP literal in brackets ([::1], normalised), an IPv4 address or a reg-name. No user info, a port only
 * after the host, and only digits in it. Null when the header is not of that form.
 */
export function parseHostHeader(header: string): string | null {
  const h = header.toLowerCase();
  let host: string;
  let rest: string;
  if (h.startsWith('[')) {
    const close = h.indexOf(']');
    if (close < 0) return null;
    const literal = h.slice(1, close);
    if (!isIPv6(literal)) return null;
    host = `[${literal}]`;
    try {
      host = new URL(`http://${host}/`).hostname;
    } catch {
      return null;
    }
    rest = h.slice(close + 1);
  } else {
    const colon = h.indexOf(':');
    host = colon < 0 ? h : h.slice(0, colon);
    rest = colon < 0 ? '' : h.slice(colon);
    if (!REG_NAME.test(host)) return null;
  }
  if (rest !== '') {
    if (!rest.startsWith(':')) return null;
    const port = rest.slice(1);
    if (!PORT.test(port) || (port !== '' && Number(port) > 65_535)) return null;
  }
  return host;
}

/**
 * Refuses requests whose Host is not ours (421) or not a Host at all (400): a page on another site
 * cannot reach us by DNS rebinding, and "localhost:8080@evil.com" is no way around it.
 */
export function installHostCheck(app: FastifyInstance, hosts: Set<string>): void {
  // Host headers seen and allowed: a client sends the same one with every request.
  const allowed = new Set<string>();
  app.addHook('onRequest', (request, reply, done) => {
    const header = request.headers.host ?? '';
    if (allowed.has(header)) return done();
    const host = parseHostHeader(header);
    if (host === null) {
      sendError(
        reply,
        400,
        ErrorCode.BAD_REQUEST_PARAMS,
        `Invalid Host header '${header}': expected host[:port], for example localhost:8080`,
      );
      return;
    }
    if (!hosts.has(host)) {
      sendError(
        reply,
        421,
        ErrorCode.PERMISSION_DENIED,
        `Host '${header}' is not allowed; use localhost or 127.0.0.1`,
      );
      return;
    }
    if (allowed.size < MAX_REMEMBERED_HOSTS) allowed.add(header);
    done();
  });
}

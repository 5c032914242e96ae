import { hostname, networkInterfaces } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { ErrorCode } from '../platform/errors.ts';
import { sendError } from './errors.ts';

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]', '::1'];

/** The Host header values this server answers: loopback, and the machine's own names when bound wider. */
export function allowedHosts(bindHost: string, extra: string[]): Set<string> {
  const hosts = new Set([...LOOPBACK, bindHost.toLowerCase(), ...extra.map((h) => h.toLowerCase())]);
  if (bindHost === '0.0.0.0' || bindHost === '::') {
    hosts.add(hostname().toLowerCase());
    for (const list of Object.values(networkInterfaces())) {
      for (const addr of list ?? []) hosts.add(addr.family === 'IPv6' ? `[${addr.address}]` : addr.address);
    }
  }
  return hosts;
}

function hostOnly(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  return colon >= 0 ? h.slice(0, colon) : h;
}

/** Refuses requests whose Host is not ours: a page on another site cannot reach us by DNS rebinding. */
export function installHostCheck(app: FastifyInstance, hosts: Set<string>): void {
  app.addHook('onRequest', async (request, reply) => {
    const host = request.headers.host;
    if (!host || !hosts.has(hostOnly(host))) {
      return sendError(
        reply,
        403,
        ErrorCode.PERMISSION_DENIED,
        `Host '${host ?? ''}' is not allowed; use localhost or 127.0.0.1`,
      );
    }
  });
}

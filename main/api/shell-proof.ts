import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** The desktop shell sends a fresh random nonce with every request to the core... */
export const SHELL_NONCE_HEADER = 'x-sandboard-nonce';
/** ...and trusts a response only if it carries HMAC-SHA256(per-launch secret, nonce) here. */
export const SHELL_PROOF_HEADER = 'x-sandboard-proof';

export function shellProof(secret: string, nonce: string): string {
  return createHmac('sha256', secret).update(nonce).digest('base64url');
}

function proofFor(secret: string, nonce: unknown): string | null {
  return typeof nonce === 'string' && nonce.length > 0 && nonce.length <= 128
    ? shellProof(secret, nonce)
    : null;
}

/**
 * Proves to the desktop shell that a response comes from this core (not from a process that took the
 * port while the core restarted): the secret reaches the core only through its environment from the
 * shell, and a proof is bound to the shell's nonce, so a proof seen once cannot be replayed.
 * Nothing is cached then: Chromium would hand the shell a cached response's stored headers, whose proof
 * answers an old nonce (and, after a relaunch, an old secret), and the shell would refuse the app's own
 * scripts.
 */
export function installShellProof(app: FastifyInstance, secret: string | undefined): void {
  if (!secret) return;
  app.addHook('onSend', async (request, reply) => {
    const proof = proofFor(secret, request.headers[SHELL_NONCE_HEADER]);
    if (proof) reply.header(SHELL_PROOF_HEADER, proof);
    reply.header('cache-control', 'no-store');
  });
  // WebSocket handshakes answer outside Fastify's hooks
  app.addHook('onReady', async () => {
    const wss = (
      app as unknown as {
        websocketServer?: { on(e: 'headers', l: (h: string[], r: IncomingMessage) => void): void };
      }
    ).websocketServer;
    wss?.on('headers', (headers, request) => {
      const proof = proofFor(secret, request.headers[SHELL_NONCE_HEADER]);
      if (proof) headers.push(`${SHELL_PROOF_HEADER}: ${proof}`);
    });
  });
}

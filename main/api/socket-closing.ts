import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { ServerSockets, STOP_GRACE_MS } from '../transport/server-sockets.ts';

/** The longest a client may take to send a whole request (headers and body); 408 and closed after. */
export const REQUEST_RECEIVE_TIMEOUT_MS = 30_000;

/**
 * No socket outlives its use. An upgrade request that is answered (refused for its Host, its login, a
 * path without a websocket) holds a socket no HTTP parser owns any more: it is closed once the answer is
 * out. And a stopping server destroys whatever its clients still hold open after a short grace
 * (websockets that do not finish their close handshake, half-sent requests), so a stop never waits on them.
 */
export function installSocketClosing(app: FastifyInstance): void {
  const sockets = new ServerSockets(app.server);
  const upgrades = new WeakSet<IncomingMessage>();
  // before @fastify/websocket's own listener, which routes the request at once
  app.server.prependListener('upgrade', (request: IncomingMessage) => upgrades.add(request));
  app.addHook('onResponse', (request, _reply, done) => {
    done();
    if (!upgrades.has(request.raw)) return;
    // ended rather than destroyed, so that the answer is read before the close; a client that never
    // closes its side loses the socket after the grace
    const socket = request.raw.socket;
    socket.end();
    setTimeout(() => socket.destroy(), STOP_GRACE_MS).unref();
  });
  let timer: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    timer = setTimeout(() => sockets.destroyAll(), STOP_GRACE_MS);
  });
  app.addHook('onClose', async () => clearTimeout(timer));
}

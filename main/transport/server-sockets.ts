import type { Server, Socket } from 'node:net';

/** How long a stopping server leaves its clients to finish (a websocket's close handshake, a broker's). */
export const STOP_GRACE_MS = 1_000;

/**
 * Every socket a server holds, so that a stop never waits on a client: closing a Node server only stops
 * accepting, and its close waits for every connection, including upgraded ones (websockets, refused
 * upgrades), MQTT clients that never sent CONNECT, and half-open ones. `closeWithin` closes the server and
 * destroys what is still open after the grace.
 */
export class ServerSockets {
  private readonly sockets = new Set<Socket>();

  constructor(server: Server) {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  get size(): number {
    return this.sockets.size;
  }

  destroyAll(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  /** Runs `close` (which resolves once the server is closed); destroys every socket left after `graceMs`. */
  async closeWithin(close: () => Promise<void>, graceMs = STOP_GRACE_MS): Promise<void> {
    const timer = setTimeout(() => this.destroyAll(), graceMs);
    try {
      await close();
    } finally {
      clearTimeout(timer);
    }
  }
}

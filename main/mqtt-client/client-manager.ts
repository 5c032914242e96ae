import { ClientConnection, ClientInputError, type ConnectOptions } from './client-connection.ts';

const MAX_CONNECTIONS = 10;

/**
 * The in-app MQTT client's connections, run in the core process: each a real client over a real socket,
 * so it behaves as a device does. At most MAX_CONNECTIONS at once; each user sees its own.
 */
export class MqttClientManager {
  private readonly connections = new Map<string, ClientConnection>();

  async connect(ownerId: string, options: ConnectOptions): Promise<ClientConnection> {
    this.forgetClosed();
    if (this.connections.size >= MAX_CONNECTIONS)
      throw new ClientInputError(`At most ${MAX_CONNECTIONS} connections at once: close one first`);
    const connection = new ClientConnection(ownerId, options);
    this.connections.set(connection.id, connection);
    try {
      await connection.ready();
    } catch (err) {
      this.connections.delete(connection.id);
      await connection.close();
      throw err;
    }
    return connection;
  }

  list(ownerId: string): ClientConnection[] {
    return [...this.connections.values()].filter((c) => c.ownerId === ownerId);
  }

  get(ownerId: string, id: string): ClientConnection | undefined {
    const c = this.connections.get(id);
    return c && c.ownerId === ownerId ? c : undefined;
  }

  async close(ownerId: string, id: string): Promise<boolean> {
    const c = this.get(ownerId, id);
    if (!c) return false;
    this.connections.delete(id);
    await c.close();
    return true;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.close()));
    this.connections.clear();
  }

  /** Closed connections stay listed (with their history) until another is opened past the limit. */
  private forgetClosed(): void {
    if (this.connections.size < MAX_CONNECTIONS) return;
    for (const [id, c] of this.connections) if (c.info().state === 'closed') this.connections.delete(id);
  }
}

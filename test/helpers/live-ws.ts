import type { WsServerMessage } from '../../shared/ws-messages.ts';

/** A WebSocket client that queues what it receives and lets a test await the next matching message. */
export class LiveClient {
  readonly ws: WebSocket;
  private readonly received: WsServerMessage[] = [];
  private waiters: { match: (m: WsServerMessage) => boolean; resolve: (m: WsServerMessage) => void }[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.ws.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as WsServerMessage;
      const waiter = this.waiters.find((w) => w.match(message));
      if (waiter) {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        waiter.resolve(message);
      } else this.received.push(message);
    });
    this.closed = new Promise((resolve) =>
      this.ws.addEventListener('close', (e) => resolve({ code: e.code, reason: e.reason })),
    );
  }

  opened(): Promise<void> {
    if (this.ws.readyState === WebSocket.OPEN) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.ws.addEventListener('open', () => resolve());
      this.ws.addEventListener('error', () => reject(new Error('WebSocket failed to open')));
    });
  }

  send(message: unknown): void {
    this.ws.send(JSON.stringify(message));
  }

  next<T extends WsServerMessage['type']>(
    type: T,
    where: (m: Extract<WsServerMessage, { type: T }>) => boolean = () => true,
  ): Promise<Extract<WsServerMessage, { type: T }>> {
    const match = (m: WsServerMessage) =>
      m.type === type && where(m as Extract<WsServerMessage, { type: T }>);
    const i = this.received.findIndex(match);
    if (i >= 0)
      return Promise.resolve(this.received.splice(i, 1)[0] as Extract<WsServerMessage, { type: T }>);
    return new Promise((resolve) =>
      this.waiters.push({ match, resolve: (m) => resolve(m as Extract<WsServerMessage, { type: T }>) }),
    );
  }

  has(type: WsServerMessage['type']): boolean {
    return this.received.some((m) => m.type === type);
  }
}

export function liveUrl(p: { urls: { http: string } }, query = ''): string {
  return `${p.urls.http.replace(/^http/, 'ws')}/api/sandboard/ws${query}`;
}

export async function connectLive(p: { urls: { http: string } }, token: string): Promise<LiveClient> {
  const client = new LiveClient(liveUrl(p));
  await client.opened();
  client.send({ type: 'auth', token });
  await client.next('ready');
  return client;
}

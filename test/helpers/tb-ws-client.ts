/** A plain WebSocket client of ThingsBoard's /api/ws: queues what it gets, lets a test await a match. */
export type TbWsMessage = Record<string, unknown> & {
  cmdId?: number;
  subscriptionId?: number;
  errorCode?: number;
  errorMsg?: string | null;
  cmdUpdateType?: string;
};

export class TbWsClient {
  readonly ws: WebSocket;
  private readonly received: TbWsMessage[] = [];
  private waiters: { match: (m: TbWsMessage) => boolean; resolve: (m: TbWsMessage) => void }[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.ws.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as TbWsMessage;
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
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The next message (received or to come) that matches. */
  next(match: (m: TbWsMessage) => boolean = () => true): Promise<TbWsMessage> {
    const i = this.received.findIndex(match);
    if (i >= 0) return Promise.resolve(this.received.splice(i, 1)[0]!);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  /** The next update of a command (new API: cmdId; v1 and errors: subscriptionId). */
  forCmd(cmdId: number, where: (m: TbWsMessage) => boolean = () => true): Promise<TbWsMessage> {
    return this.next((m) => (m.cmdId === cmdId || m.subscriptionId === cmdId) && where(m));
  }

  pending(): TbWsMessage[] {
    return [...this.received];
  }
}

export function tbWsUrl(p: { urls: { http: string } }, path = '/api/ws', query = ''): string {
  return `${p.urls.http.replace(/^http/, 'ws')}${path}${query}`;
}

/** Opens /api/ws and authenticates with authCmd, sending the first commands with it as the UI does. */
export async function openTbWs(
  p: { urls: { http: string } },
  auth: { token?: string; apiKey?: string },
  cmds: unknown[] = [],
): Promise<TbWsClient> {
  const client = new TbWsClient(tbWsUrl(p));
  await client.opened();
  client.send({ authCmd: { cmdId: 0, ...auth }, cmds });
  return client;
}

/** A WebSocket client of JSON messages: queues what it receives and lets a test await the next match. */
export class JsonSocket<M> {
  readonly ws: WebSocket;
  private readonly received: M[] = [];
  private waiters: { match: (m: M) => boolean; resolve: (m: M) => void }[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.ws.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as M;
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
  nextMatching(match: (m: M) => boolean): Promise<M> {
    const i = this.received.findIndex(match);
    if (i >= 0) return Promise.resolve(this.received.splice(i, 1)[0]!);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  /** What was received and not yet taken. */
  pending(): M[] {
    return [...this.received];
  }
}

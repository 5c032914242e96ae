import type { MessageFilter } from '../../../shared/schemas/mqtt-inspector.ts';
import type { WsClientMessage, WsServerMessage, WsServerMessageOf } from '../../../shared/ws-messages.ts';

export type MqttMessagesMessage = WsServerMessageOf<'mqttMessages'>;
import { WS_PATH, WsCloseCode } from '../../../shared/ws-protocol.ts';

export type LiveStatus = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface LiveSocketOptions {
  /** the current access token, or null when logged out */
  token: () => string | null;
  onMessage: (message: WsServerMessage) => void;
  onStatus: (status: LiveStatus) => void;
  /** the server refused the token: refresh it (or end the session) before the next attempt */
  onUnauthenticated: () => Promise<void>;
  /** the connection came back after a gap: what is shown may have missed updates */
  onReconnected: () => void;
  url?: string;
}

const BACKOFF_MS = [500, 1_000, 2_000, 5_000, 10_000];

function defaultUrl(): string {
  const { protocol, host } = window.location;
  return `${protocol === 'https:' ? 'wss' : 'ws'}://${host}${WS_PATH}`;
}

/**
 * The browser's end of /api/sandboard/ws: authenticates with the token as its first message (never a cookie),
 * sends it again after each refresh, follows devices by reference count, and reconnects with backoff.
 */
export class LiveSocket {
  private ws: WebSocket | null = null;
  private status: LiveStatus = 'closed';
  private attempt = 0;
  private everOpened = false;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private stopped = true;
  private readonly follows = new Map<string, number>();
  /** devices the server confirmed it pushes to this connection */
  private readonly confirmed = new Set<string>();
  private readonly confirmedListeners = new Set<() => void>();
  private readonly options: LiveSocketOptions;
  /** the MQTT page's traffic watch (one at a time), sent again after a reconnect */
  private mqttWatch: { filter: MessageFilter; listener: (m: MqttMessagesMessage) => void } | null = null;

  constructor(options: LiveSocketOptions) {
    this.options = options;
  }

  get currentStatus(): LiveStatus {
    return this.status;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const ws = this.ws;
    this.ws = null;
    ws?.close(1000, 'logged out');
    this.setConfirmed(null, false);
    this.setStatus('closed');
  }

  /** Whether the server confirmed it pushes this device's updates (on the current connection). */
  isFollowing(deviceId: string): boolean {
    return this.confirmed.has(deviceId);
  }

  onFollowingChange(listener: () => void): () => void {
    this.confirmedListeners.add(listener);
    return () => this.confirmedListeners.delete(listener);
  }

  private setConfirmed(deviceId: string | null, on: boolean): void {
    if (deviceId === null) this.confirmed.clear();
    else if (on) this.confirmed.add(deviceId);
    else this.confirmed.delete(deviceId);
    for (const l of this.confirmedListeners) l();
  }

  /** Sends the refreshed token on the open connection. */
  tokenChanged(): void {
    const token = this.options.token();
    if (token && this.ws?.readyState === WebSocket.OPEN) this.send({ type: 'auth', token });
  }

  /** Follows a device's telemetry and attributes until the returned function is called. */
  follow(deviceId: string): () => void {
    const n = this.follows.get(deviceId) ?? 0;
    this.follows.set(deviceId, n + 1);
    if (n === 0 && this.status === 'open') this.send({ type: 'subscribe', deviceId });
    return () => {
      const left = (this.follows.get(deviceId) ?? 1) - 1;
      if (left > 0) {
        this.follows.set(deviceId, left);
        return;
      }
      this.follows.delete(deviceId);
      this.setConfirmed(deviceId, false);
      if (this.status === 'open') this.send({ type: 'unsubscribe', deviceId });
    };
  }

  /** Follows the MQTT inspector's traffic matching the filter until the returned function is called. */
  watchMqtt(filter: MessageFilter, listener: (m: MqttMessagesMessage) => void): () => void {
    const watch = { filter, listener };
    this.mqttWatch = watch;
    if (this.status === 'open') this.send({ type: 'mqttWatch', filter });
    return () => {
      if (this.mqttWatch !== watch) return;
      this.mqttWatch = null;
      if (this.status === 'open') this.send({ type: 'mqttUnwatch' });
    };
  }

  private setStatus(status: LiveStatus): void {
    if (this.status === status) return;
    this.status = status;
    this.options.onStatus(status);
  }

  private send(message: WsClientMessage): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  private connect(): void {
    const token = this.options.token();
    if (this.stopped || !token) return;
    this.setStatus(this.everOpened ? 'reconnecting' : 'connecting');
    const ws = new WebSocket(this.options.url ?? defaultUrl());
    this.ws = ws;
    ws.addEventListener('open', () => {
      const current = this.options.token();
      if (current) ws.send(JSON.stringify({ type: 'auth', token: current } satisfies WsClientMessage));
    });
    ws.addEventListener('message', (event) => {
      if (this.ws !== ws) return;
      let message: WsServerMessage;
      try {
        message = JSON.parse(String(event.data)) as WsServerMessage;
      } catch {
        return;
      }
      if (message.type === 'ready' && this.status !== 'open') {
        this.attempt = 0;
        const reconnected = this.everOpened;
        this.everOpened = true;
        this.setStatus('open');
        for (const deviceId of this.follows.keys()) this.send({ type: 'subscribe', deviceId });
        if (this.mqttWatch) this.send({ type: 'mqttWatch', filter: this.mqttWatch.filter });
        if (reconnected) this.options.onReconnected();
      }
      if (message.type === 'mqttMessages') this.mqttWatch?.listener(message);
      if (message.type === 'subscribed' && this.follows.has(message.deviceId))
        this.setConfirmed(message.deviceId, true);
      this.options.onMessage(message);
    });
    ws.addEventListener('close', (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.setConfirmed(null, false);
      if (this.stopped) return;
      this.setStatus('reconnecting');
      const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)]!;
      this.attempt++;
      const retry = () => {
        this.retryTimer = setTimeout(() => this.connect(), delay);
      };
      if (event.code === WsCloseCode.UNAUTHENTICATED) {
        // a refused token: refresh it first (this ends the session if the refresh is refused too)
        this.options.onUnauthenticated().then(retry, retry);
      } else retry();
    });
  }
}

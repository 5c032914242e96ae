/**
 * The dashboard page's one connection to ThingsBoard's WebSocket API (/api/ws), as ThingsBoard's own UI
 * uses it (ui-ngx core/ws/websocket.service.ts): the token in an authCmd as the first message, then
 * `{cmds: [...]}` frames; each subscription has a cmdId its updates carry. It reconnects with backoff and
 * sends every open subscription again, so a restarted server or a dropped network heals by itself.
 */

export type TbSocketStatus = 'connecting' | 'open' | 'reconnecting' | 'closed';

/** A command of the `cmds` array, without its cmdId (the socket numbers them). */
export interface TbCmd {
  type: string;
  [field: string]: unknown;
}

/** An update of ENTITY_DATA, ALARM_DATA or another command (CmdUpdate and its kinds). */
export interface TbCmdUpdate {
  cmdId: number;
  cmdUpdateType?: string;
  errorCode?: number;
  errorMsg?: string | null;
  data?: { data: unknown[]; totalElements?: number; totalPages?: number; hasNext?: boolean } | null;
  update?: unknown[] | null;
  [field: string]: unknown;
}

interface Subscription {
  cmd: TbCmd;
  onUpdate: (u: TbCmdUpdate) => void;
  unsubscribeType: string;
}

export interface TbSocketOptions {
  token: () => string | null;
  /** the server closed for a refused or expired token: refresh it before the next attempt */
  onUnauthenticated: () => Promise<void>;
  url?: string;
}

const BACKOFF_MS = [500, 1_000, 2_000, 5_000, 10_000];
/** ThingsBoard closes with POLICY_VIOLATION for a bad token or a late authCmd */
const POLICY_VIOLATION = 1008;

function defaultUrl(): string {
  const { protocol, host } = window.location;
  return `${protocol === 'https:' ? 'wss' : 'ws'}://${host}/api/ws`;
}

export class TbSocket {
  private ws: WebSocket | null = null;
  private nextCmdId = 1;
  private attempt = 0;
  private everOpened = false;
  private stopped = true;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly subs = new Map<number, Subscription>();
  private readonly statusListeners = new Set<(s: TbSocketStatus) => void>();
  private statusValue: TbSocketStatus = 'closed';
  private readonly options: TbSocketOptions;

  constructor(options: TbSocketOptions) {
    this.options = options;
  }

  get status(): TbSocketStatus {
    return this.statusValue;
  }

  onStatus(listener: (s: TbSocketStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
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
    ws?.close(1000, 'page closed');
    this.setStatus('closed');
  }

  /**
   * Sends a command and routes its updates to onUpdate until the returned function is called (which
   * sends the matching unsubscribe command, e.g. ENTITY_DATA_UNSUBSCRIBE).
   */
  subscribe(cmd: TbCmd, onUpdate: (u: TbCmdUpdate) => void): () => void {
    const cmdId = this.nextCmdId++;
    const sub: Subscription = { cmd, onUpdate, unsubscribeType: `${cmd.type}_UNSUBSCRIBE` };
    this.subs.set(cmdId, sub);
    if (this.statusValue === 'open') this.send([{ ...cmd, cmdId }]);
    return () => {
      if (!this.subs.delete(cmdId)) return;
      if (this.statusValue === 'open') this.send([{ type: sub.unsubscribeType, cmdId }]);
    };
  }

  private setStatus(status: TbSocketStatus): void {
    if (this.statusValue === status) return;
    this.statusValue = status;
    for (const l of this.statusListeners) l(status);
  }

  private send(cmds: unknown[]): void {
    if (cmds.length > 0 && this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ cmds }));
  }

  private connect(): void {
    const token = this.options.token();
    if (this.stopped || !token) return;
    this.setStatus(this.everOpened ? 'reconnecting' : 'connecting');
    const ws = new WebSocket(this.options.url ?? defaultUrl());
    this.ws = ws;
    ws.addEventListener('open', () => {
      if (this.ws !== ws) return;
      const current = this.options.token() ?? token;
      const cmds = [...this.subs].map(([cmdId, s]) => ({ ...s.cmd, cmdId }));
      ws.send(JSON.stringify({ authCmd: { cmdId: 0, token: current }, cmds }));
      this.attempt = 0;
      this.everOpened = true;
      this.setStatus('open');
    });
    ws.addEventListener('message', (event) => {
      if (this.ws !== ws) return;
      let update: TbCmdUpdate;
      try {
        update = JSON.parse(String(event.data)) as TbCmdUpdate;
      } catch {
        return;
      }
      this.subs.get(update.cmdId)?.onUpdate(update);
    });
    ws.addEventListener('close', (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) return;
      this.setStatus('reconnecting');
      const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)]!;
      this.attempt++;
      const retry = () => {
        this.retryTimer = setTimeout(() => this.connect(), delay);
      };
      if (event.code === POLICY_VIOLATION) this.options.onUnauthenticated().then(retry, retry);
      else retry();
    });
  }
}

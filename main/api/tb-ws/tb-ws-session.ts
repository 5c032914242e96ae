import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import {
  AuthCmd,
  LEGACY_CMD_LISTS,
  SubscriptionErrorCode,
  TB_WS_LIMITS,
  TbWsCloseCode,
  WS_CMD_SCHEMAS,
  WS_CMD_TYPES,
  type WsCmd,
  type WsCmdType,
} from '../../../shared/schemas/tb-ws.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import { PlatformError } from '../../platform/errors.ts';
import type { Services } from '../../platform/services.ts';
import { CmdError, handleCmd } from './tb-ws-commands.ts';
import type { LiveSub, TbWsHub, WsSink } from './tb-ws-hub.ts';
import { telemetryFrame } from './tb-ws-subs.ts';

/** /api/ws takes WsCommandsWrapper; /api/ws/plugins/telemetry the deprecated TelemetryCmdsWrapper. */
export type SessionKind = 'GENERAL' | 'TELEMETRY';

/** The part of a `ws` WebSocket a session uses. */
export interface TbSocket {
  readonly readyState: number;
  send(data: string, cb: (err?: Error) => void): void;
  close(code?: number, reason?: string): void;
  ping(): void;
  on(event: 'message', listener: (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => void): void;
  on(event: 'close' | 'pong', listener: () => void): void;
}

const OPEN = 1;

class ParseError extends Error {}

/** A close reason holds at most 123 bytes. */
const reasonOf = (text: string) =>
  Buffer.from(text)
    .subarray(0, 120)
    .toString('utf8')
    .replace(/\uFFFD$/, '');

/** The first thing wrong with a value against a schema, with its JSON path. */
function firstError(schema: TSchema, value: unknown, path: string): string {
  for (const e of Value.Errors(schema, value))
    return `${path}${e.instancePath.replace(/\//g, '.')}: ${e.message}`;
  return `${path}: invalid`;
}

/** The commands of a message, in the order ThingsBoard runs them. */
function commandsOf(message: unknown, kind: SessionKind): { authCmd: AuthCmd | null; cmds: WsCmd[] } {
  if (typeof message !== 'object' || message === null || Array.isArray(message))
    throw new ParseError('the message is not a JSON object');
  const m = message as Record<string, unknown>;
  const raw: { cmd: unknown; type: unknown; path: string }[] = [];
  let authCmd: AuthCmd | null = null;
  if (kind === 'GENERAL') {
    if (m.authCmd !== undefined && m.authCmd !== null) {
      if (!Value.Check(AuthCmd, m.authCmd)) throw new ParseError(firstError(AuthCmd, m.authCmd, 'authCmd'));
      authCmd = m.authCmd;
    }
    if (m.cmds !== undefined && m.cmds !== null) {
      if (!Array.isArray(m.cmds)) throw new ParseError('cmds: must be an array');
      m.cmds.forEach((cmd: unknown, i) =>
        raw.push({ cmd, type: (cmd as { type?: unknown } | null)?.type, path: `cmds[${i}]` }),
      );
    }
  } else {
    for (const [list, type] of Object.entries(LEGACY_CMD_LISTS)) {
      const cmds = m[list];
      if (cmds === undefined || cmds === null) continue;
      if (!Array.isArray(cmds)) throw new ParseError(`${list}: must be an array`);
      cmds.forEach((cmd: unknown, i) => raw.push({ cmd, type, path: `${list}[${i}]` }));
    }
  }
  if (raw.length > TB_WS_LIMITS.maxCmdsPerMessage)
    throw new ParseError(`at most ${TB_WS_LIMITS.maxCmdsPerMessage} commands a message`);
  const cmds = raw.map(({ cmd, type, path }) => {
    if (typeof cmd !== 'object' || cmd === null) throw new ParseError(`${path}: must be an object`);
    if (!WS_CMD_TYPES.includes(type as WsCmdType))
      throw new ParseError(`${path}.type: unknown command type ${JSON.stringify(type)}`);
    const schema = WS_CMD_SCHEMAS[type as WsCmdType];
    if (!Value.Check(schema, cmd)) throw new ParseError(firstError(schema, cmd, path));
    return { ...cmd, type } as WsCmd;
  });
  return { authCmd, cmds };
}

/** One client of ThingsBoard's WebSocket API: its authentication, its subscriptions by cmdId, its queue. */
export class TbWsSession implements WsSink {
  principal: Principal | null;
  readonly subs = new Map<number, LiveSub>();
  readonly hub: TbWsHub;
  readonly services: Services;
  private readonly socket: TbSocket;
  private readonly kind: SessionKind;
  private queued = 0;
  private lastActivity = Date.now();
  private closed = false;
  private readonly authTimer: NodeJS.Timeout | null;

  constructor(socket: TbSocket, kind: SessionKind, hub: TbWsHub, principal: Principal | null) {
    this.socket = socket;
    this.kind = kind;
    this.hub = hub;
    this.services = hub.services;
    this.principal = principal;
    this.authTimer = principal
      ? null
      : setTimeout(() => this.close(TbWsCloseCode.POLICY_VIOLATION, ''), TB_WS_LIMITS.authTimeoutMs);
    socket.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    socket.on('pong', () => (this.lastActivity = Date.now()));
    socket.on('close', () => this.dispose());
  }

  /** Sends a frame; one beyond the queue limit closes the session, as ThingsBoard does. */
  deliver(frame: string): void {
    if (this.closed || this.socket.readyState !== OPEN) return;
    if (this.queued >= TB_WS_LIMITS.maxQueueMessagesPerSession) {
      this.close(TbWsCloseCode.POLICY_VIOLATION, 'Max pending updates limit reached!');
      return;
    }
    this.queued++;
    this.socket.send(frame, () => this.queued--);
  }

  close(code: number, reason: string): void {
    if (!this.closed && this.socket.readyState === OPEN) this.socket.close(code, reasonOf(reason));
    this.dispose();
  }

  /** Every third of the ping timeout: a ping, or the close of a session that answered none. */
  pingTick(now: number): void {
    if (this.closed || !this.principal) return;
    const idle = now - this.lastActivity;
    if (idle >= TB_WS_LIMITS.pingTimeoutMs) this.close(TbWsCloseCode.SESSION_NOT_RELIABLE, 'No pong');
    else if (idle >= TB_WS_LIMITS.pingTimeoutMs / 3 && this.socket.readyState === OPEN) this.socket.ping();
  }

  /** Replaces (or drops, with null) the subscription of a cmdId. */
  setSub(cmdId: number, sub: LiveSub | null): void {
    const old = this.subs.get(cmdId);
    if (old) this.hub.remove(old);
    if (sub) this.subs.set(cmdId, sub);
    else this.subs.delete(cmdId);
  }

  private dispose(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.authTimer) clearTimeout(this.authTimer);
    for (const sub of this.subs.values()) this.hub.remove(sub);
    this.subs.clear();
  }

  private onMessage(data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): void {
    if (this.closed) return;
    this.lastActivity = Date.now();
    if (isBinary) {
      this.close(1003, 'Binary messages not supported');
      return;
    }
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Uint8Array);
    if (bytes.length > TB_WS_LIMITS.maxTextMessageBytes) {
      this.close(
        TbWsCloseCode.TOO_BIG_TO_PROCESS,
        `The message is larger than ${TB_WS_LIMITS.maxTextMessageBytes} bytes`,
      );
      return;
    }
    let parsed: ReturnType<typeof commandsOf>;
    try {
      parsed = commandsOf(JSON.parse(bytes.toString('utf8')), this.kind);
    } catch (err) {
      const why = err instanceof ParseError ? err.message : 'the message is not JSON';
      if (this.principal)
        this.deliver(
          telemetryFrame(1, null, [SubscriptionErrorCode.BAD_REQUEST, `Failed to parse the payload: ${why}`]),
        );
      else this.close(TbWsCloseCode.BAD_DATA, why);
      return;
    }
    if (!this.principal) {
      if (!parsed.authCmd) {
        this.close(TbWsCloseCode.POLICY_VIOLATION, 'Auth cmd is missing');
        return;
      }
      const { token, apiKey } = parsed.authCmd;
      try {
        this.principal = this.services.auth.authenticate(
          apiKey ? `ApiKey ${apiKey}` : `Bearer ${token ?? ''}`,
        );
      } catch (err) {
        this.close(TbWsCloseCode.BAD_DATA, err instanceof Error ? err.message : 'Authentication failed');
        return;
      }
      if (this.authTimer) clearTimeout(this.authTimer);
    }
    for (const cmd of parsed.cmds) this.run(cmd);
  }

  /** Runs one command; what goes wrong is that command's error update, never the session's end. */
  private run(cmd: WsCmd): void {
    try {
      if (cmd.cmdId < 0) throw new CmdError(SubscriptionErrorCode.BAD_REQUEST, 'Cmd id is negative value!');
      handleCmd(this, cmd);
    } catch (err) {
      const [code, message] =
        err instanceof CmdError
          ? [err.code, err.message]
          : err instanceof PlatformError
            ? [
                err.status === 401 || err.status === 403
                  ? SubscriptionErrorCode.UNAUTHORIZED
                  : err.status === 400 || err.status === 404
                    ? SubscriptionErrorCode.BAD_REQUEST
                    : SubscriptionErrorCode.INTERNAL_ERROR,
                err.message,
              ]
            : [SubscriptionErrorCode.INTERNAL_ERROR, 'Internal Server error!'];
      this.deliver(telemetryFrame(cmd.cmdId, null, [code, message]));
    }
  }
}

import { newMsg, type TbMsg } from './tb-msg.ts';
import { ErrorCode, PlatformError } from './errors.ts';

export interface RpcRequest {
  id: number;
  method: string;
  params: unknown;
}

/** The transport side of RPC: delivers a request to the device's sessions; false if none can take it. */
export interface RpcTransport {
  sendRpc(deviceId: string, request: RpcRequest): boolean;
}

/**
 * Where the answer to a device's own (client-side) RPC request goes: the transport session that asked
 * (an MQTT connection publishes it on v1/devices/me/rpc/response/{id}; an HTTP device API would open a
 * session for one request and answer its caller). Returns false when the session can no longer take it.
 */
export type ClientRpcReplier = (requestId: number, body: unknown) => boolean;

/** ThingsBoard names the server that holds a session; Sandboard is one server. */
export const RPC_SERVICE_ID = 'sandboard';

interface PendingRpc {
  deviceId: string;
  request: RpcRequest;
  oneway: boolean;
  delivered: boolean;
  timer: NodeJS.Timeout;
  resolve(result: unknown): void;
  reject(err: Error): void;
}

const timeoutError = (ms: number, oneway: boolean) =>
  new PlatformError(
    408,
    ErrorCode.GENERAL,
    oneway
      ? `The device did not take the RPC request within ${ms} ms (is it connected and subscribed to RPC?)`
      : `The device did not answer the RPC request within ${ms} ms`,
  );

/**
 * Server-side RPC: a request goes through the rule engine (RPC_CALL_FROM_SERVER_TO_DEVICE) to the
 * RPC Call Request node, which dispatches it here to the transport. A request that finds no session
 * waits until one subscribes or the timeout passes.
 */
export class RpcService {
  private readonly pending = new Map<string, PendingRpc>();
  private readonly nextIds = new Map<string, number>();
  private readonly transports: RpcTransport[] = [];
  private submit: ((msg: TbMsg) => void) | null = null;
  private readonly clientSessions = new Map<string, ClientRpcReplier>();

  attach(transport: RpcTransport, submit: (msg: TbMsg) => void): void {
    this.transports.push(transport);
    this.submit = submit;
  }

  /** Another transport devices take RPC through (the device HTTP API's long polls). */
  addTransport(transport: RpcTransport): () => void {
    this.transports.push(transport);
    return () => {
      const i = this.transports.indexOf(transport);
      if (i >= 0) this.transports.splice(i, 1);
    };
  }

  call(
    device: { id: string; name: string; type: string },
    body: { method: string; params?: unknown; timeout?: number },
    oneway: boolean,
  ): Promise<unknown> {
    const id = (this.nextIds.get(device.id) ?? 0) + 1;
    this.nextIds.set(device.id, id);
    const timeout = body.timeout ?? 10_000;
    const key = `${device.id}:${id}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(key);
        reject(timeoutError(timeout, oneway));
      }, timeout);
      this.pending.set(key, {
        deviceId: device.id,
        request: { id, method: body.method, params: body.params ?? {} },
        oneway,
        delivered: false,
        timer,
        resolve,
        reject,
      });
      if (!this.submit) {
        this.fail(key, new PlatformError(503, ErrorCode.GENERAL, 'RPC transport is not running'));
        return;
      }
      this.submit(
        newMsg(
          'RPC_CALL_FROM_SERVER_TO_DEVICE',
          { entityType: 'DEVICE', id: device.id },
          { method: body.method, params: body.params ?? {} },
          {
            requestId: String(id),
            oneway: String(oneway),
            expirationTime: String(Date.now() + timeout),
            deviceName: device.name,
            deviceType: device.type,
          },
        ),
      );
    });
  }

  /** Called by the RPC Call Request node. */
  dispatch(deviceId: string, requestId: number): void {
    const key = `${deviceId}:${requestId}`;
    const p = this.pending.get(key);
    if (!p || p.delivered) return;
    if (!this.transports.some((t) => t.sendRpc(deviceId, p.request))) return;
    p.delivered = true;
    if (p.oneway) this.settle(key, null);
  }

  /** A session of the device can now take RPC: deliver what waits for it. */
  deviceReady(deviceId: string): void {
    for (const [key, p] of this.pending)
      if (p.deviceId === deviceId && !p.delivered) this.dispatch(deviceId, Number(key.split(':')[1]));
  }

  /** The device's answer to a two-way request. Returns false if nothing waited for it. */
  respond(deviceId: string, requestId: number, result: unknown): boolean {
    const key = `${deviceId}:${requestId}`;
    if (!this.pending.has(key)) return false;
    this.settle(key, result);
    return true;
  }

  /** A transport session that may send client-side RPC requests; the returned function forgets it. */
  openClientSession(sessionId: string, replier: ClientRpcReplier): () => void {
    this.clientSessions.set(sessionId, replier);
    return () => {
      if (this.clientSessions.get(sessionId) === replier) this.clientSessions.delete(sessionId);
    };
  }

  /**
   * The RPC Call Reply node's answer to a client-side request (ThingsBoard's sendRpcReplyToDevice): goes to
   * the session named in the request's metadata. False when that session is gone or not on this server.
   */
  replyToDevice(serviceId: string, sessionId: string, requestId: number, body: unknown): boolean {
    if (serviceId !== RPC_SERVICE_ID) return false;
    const replier = this.clientSessions.get(sessionId);
    return replier ? replier(requestId, body) : false;
  }

  pendingCount(): number {
    return this.pending.size;
  }

  private settle(key: string, result: unknown): void {
    const p = this.pending.get(key);
    if (!p) return;
    this.pending.delete(key);
    clearTimeout(p.timer);
    p.resolve(result);
  }

  private fail(key: string, err: Error): void {
    const p = this.pending.get(key);
    if (!p) return;
    this.pending.delete(key);
    clearTimeout(p.timer);
    p.reject(err);
  }

  stop(): void {
    for (const key of [...this.pending.keys()])
      this.fail(key, new PlatformError(503, ErrorCode.GENERAL, 'Sandboard is stopping'));
  }
}

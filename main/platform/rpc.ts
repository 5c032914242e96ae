import { randomUUID } from 'node:crypto';
import type { PageData, PageQuery } from '../../shared/schemas/common.ts';
import {
  RPC_MAX_EXPIRATION_MS,
  type PersistentRpc,
  type RpcRequestBody,
  type RpcStatus,
} from '../../shared/schemas/rpc.ts';
import { requireCustomerAccess, requireTenantAdmin, type Principal } from './auth/principal.ts';
import type { PlatformContext } from './context.ts';
import { ErrorCode, invalidArgument, notFound, PlatformError } from './errors.ts';
import { isFinal, RpcStore, type RpcRow } from './rpc-store.ts';
import type { StoreBudget } from './store-budget.ts';
import { newMsg, type TbMsg } from './tb-msg.ts';

export interface RpcRequest {
  id: number;
  method: string;
  params: unknown;
}

/**
 * What the transport did with a request: nothing (no session took it), published with QoS 1 and a PUBACK
 * awaited, or published with QoS 0 (delivered as far as anyone will know).
 */
export type RpcDelivery = 'none' | 'awaitingAck' | 'delivered';

/**
 * The transport side of RPC: delivers a request to the device's sessions. true is 'delivered' (a device
 * HTTP long poll that got it in its response), false 'none'.
 */
export interface RpcTransport {
  sendRpc(deviceId: string, request: RpcRequest): RpcDelivery | boolean;
}

/**
 * Where the answer to a device's own (client-side) RPC request goes: the transport session that asked
 * (an MQTT connection publishes it on v1/devices/me/rpc/response/{id}; an HTTP device API would open a
 * session for one request and answer its caller). Returns false when the session can no longer take it.
 */
export type ClientRpcReplier = (requestId: number, body: unknown) => boolean;

/** ThingsBoard names the server that holds a session; Sandboard is one server. */
export const RPC_SERVICE_ID = 'sandboard';

/**
 * ThingsBoard's RpcError for a request that ends without an answer: TIMEOUT when the device took it,
 * NO_ACTIVE_CONNECTION when no session did. The routes turn it into their status codes.
 */
export class RpcTimeoutError extends Error {
  readonly reason: 'TIMEOUT' | 'NO_ACTIVE_CONNECTION';
  constructor(reason: 'TIMEOUT' | 'NO_ACTIVE_CONNECTION', message: string) {
    super(message);
    this.reason = reason;
  }
}

export interface RpcSettings {
  /** a QoS 1 request not acknowledged within this counts as a delivery timeout (ThingsBoard: transport timeout) */
  deliveryTimeoutMs: number;
  /** the most re-sends after delivery timeouts (ThingsBoard's actors.rpc.max_retries) */
  maxRetries: number;
  /** not yet final persistent requests a device may have */
  maxOpenPerDevice: number;
}

export const DEFAULT_RPC_SETTINGS: RpcSettings = {
  deliveryTimeoutMs: 10_000,
  maxRetries: 5,
  maxOpenPerDevice: 1000,
};

interface Pending {
  deviceId: string;
  request: RpcRequest;
  oneway: boolean;
  /** a session took it (lightweight), or it is DELIVERED (persistent) */
  delivered: boolean;
  /** persistent: published with QoS 1, its PUBACK not yet in */
  awaitingAck: boolean;
  expiry: NodeJS.Timeout;
  /** lightweight requests: the REST call waiting */
  resolve?: (result: unknown) => void;
  reject?: (err: Error) => void;
  /** persistent requests: their row, kept in step with the store */
  row?: RpcRow;
  deliveryTimer?: NodeJS.Timeout;
}

/**
 * Server-side RPC. A request goes through the rule engine (RPC_CALL_FROM_SERVER_TO_DEVICE) to the RPC
 * Call Request node, which dispatches it here to the transport; one that finds no session waits until
 * one subscribes. A lightweight request lives in memory until answered or timed out. A persistent one is
 * stored first (its rpcId answer means it is on disk) and goes through ThingsBoard's states: QUEUED, SENT
 * (published, PUBACK awaited), DELIVERED, then SUCCESSFUL, or TIMEOUT (no PUBACK: re-sent while retries
 * last), FAILED, EXPIRED; each change is on disk and goes to the rule engine as RPC_<STATUS>. Restarts
 * take up the open ones.
 */
export class RpcService {
  private readonly ctx: PlatformContext;
  private readonly store: RpcStore;
  private readonly settings: RpcSettings;
  private readonly storage: StoreBudget | undefined;
  private readonly pending = new Map<string, Pending>();
  private readonly nextIds = new Map<string, number>();
  private readonly transports: RpcTransport[] = [];
  private submit: ((msg: TbMsg) => void) | null = null;
  /** rule engine messages of status changes before the engine was attached (restart) */
  private readonly early: TbMsg[] = [];
  private readonly clientSessions = new Map<string, ClientRpcReplier>();
  private stopped = false;

  constructor(ctx: PlatformContext, settings: RpcSettings = DEFAULT_RPC_SETTINGS, storage?: StoreBudget) {
    this.ctx = ctx;
    this.settings = settings;
    this.storage = storage;
    this.store = new RpcStore(ctx);
    ctx.events.on('deviceDeleted', ({ deviceId }) => this.forgetDevice(deviceId));
  }

  attach(transport: RpcTransport, submit: (msg: TbMsg) => void): void {
    this.transports.push(transport);
    this.submit = submit;
    for (const msg of this.early.splice(0)) submit(msg);
  }

  /** Another transport devices take RPC through (the device HTTP API's long polls). */
  addTransport(transport: RpcTransport): () => void {
    this.transports.push(transport);
    return () => {
      const i = this.transports.indexOf(transport);
      if (i >= 0) this.transports.splice(i, 1);
    };
  }

  /** Takes up the persistent requests a previous run left open (expired ones become EXPIRED). */
  async restore(): Promise<void> {
    for (const [deviceId, last] of this.store.lastRequestIds())
      this.nextIds.set(deviceId, Math.max(this.nextIds.get(deviceId) ?? 0, last));
    const now = this.ctx.now();
    for (const row of this.store.open()) {
      if (row.expiration_time <= now) {
        await this.setStatus(row, 'EXPIRED');
        continue;
      }
      this.track(row, row.status === 'DELIVERED');
    }
  }

  /** A lightweight call resolves with the answer (null for one-way); a persistent one with {rpcId} once stored. */
  async call(
    device: { id: string; name: string; type: string },
    body: RpcRequestBody,
    oneway: boolean,
  ): Promise<unknown> {
    if (body.expirationTime !== undefined && body.expirationTime > this.ctx.now() + RPC_MAX_EXPIRATION_MS)
      throw invalidArgument(`expirationTime is more than ${RPC_MAX_EXPIRATION_MS / 86_400_000} days ahead`);
    const id = (this.nextIds.get(device.id) ?? 0) + 1;
    this.nextIds.set(device.id, id);
    if (body.persistent) return this.callPersistent(device, body, oneway, id);
    const timeout = body.timeout ?? 10_000;
    const expirationTime = body.expirationTime ?? this.ctx.now() + timeout;
    const key = `${device.id}:${id}`;
    return new Promise((resolve, reject) => {
      const expiry = setTimeout(() => {
        const p = this.pending.get(key);
        this.pending.delete(key);
        const err = p?.delivered
          ? new RpcTimeoutError('TIMEOUT', `The device did not answer the RPC request within ${timeout} ms`)
          : new RpcTimeoutError(
              'NO_ACTIVE_CONNECTION',
              `The device did not take the RPC request within ${timeout} ms (is it connected and subscribed to RPC?)`,
            );
        if (p) this.emitResult(p, err.reason, { error: err.message });
        reject(err);
      }, expirationTime - this.ctx.now());
      const request = { id, method: body.method, params: body.params ?? {} };
      this.pending.set(key, {
        deviceId: device.id,
        request,
        oneway,
        delivered: false,
        awaitingAck: false,
        expiry,
        resolve,
        reject,
      });
      if (!this.submit) {
        this.fail(key, new PlatformError(503, ErrorCode.GENERAL, 'RPC transport is not running'));
        return;
      }
      this.ctx.events.emit('rpcRequest', { deviceId: device.id, ...request, oneway, persistent: false });
      this.submit(this.requestMsg(device, request, oneway, expirationTime, false));
    });
  }

  private async callPersistent(
    device: { id: string; name: string; type: string },
    body: RpcRequestBody,
    oneway: boolean,
    requestId: number,
  ): Promise<{ rpcId: string }> {
    const now = this.ctx.now();
    const expirationTime = body.expirationTime ?? now + (body.timeout ?? 10_000);
    if (this.store.countOpen(device.id) >= this.settings.maxOpenPerDevice)
      throw invalidArgument(
        `The device has ${this.settings.maxOpenPerDevice} persistent RPC requests waiting: delete some or let them expire`,
      );
    await this.storage?.admit();
    const rpcId = body.requestUUID ?? randomUUID();
    if (this.store.find(rpcId)) throw invalidArgument(`RPC request with id [${rpcId}] already exists`);
    const expired = expirationTime <= now;
    const row: RpcRow = {
      id: rpcId,
      created_time: now,
      device_id: device.id,
      request_id: requestId,
      oneway: oneway ? 1 : 0,
      expiration_time: expirationTime,
      method: body.method,
      params: JSON.stringify(body.params ?? {}),
      retries: body.retries ?? null,
      attempts: 0,
      status: expired ? 'EXPIRED' : 'QUEUED',
      response: null,
      additional_info: body.additionalInfo === undefined ? null : JSON.stringify(body.additionalInfo),
    };
    await this.store.insert(row);
    this.emit(row);
    if (!expired) {
      this.track(row, false);
      const request = { id: requestId, method: body.method, params: body.params ?? {} };
      this.ctx.events.emit('rpcRequest', { deviceId: device.id, ...request, oneway, persistent: true });
      this.emitMsg(this.requestMsg(device, request, oneway, expirationTime, true, rpcId));
    }
    return { rpcId };
  }

  /** Called by the RPC Call Request node. */
  dispatch(deviceId: string, requestId: number): void {
    const key = `${deviceId}:${requestId}`;
    const p = this.pending.get(key);
    if (!p || p.delivered || p.awaitingAck) return;
    const delivery = this.send(deviceId, p.request);
    if (delivery === 'none') return;
    if (!p.row) {
      p.delivered = true;
      if (p.oneway) this.settle(key, null);
      return;
    }
    if (delivery === 'delivered') {
      this.delivered(key, p);
      return;
    }
    p.awaitingAck = true;
    void this.setStatus(p.row, 'SENT');
    const wait = Math.min(this.settings.deliveryTimeoutMs, p.row.expiration_time - this.ctx.now());
    p.deliveryTimer = setTimeout(() => this.deliveryTimedOut(key), Math.max(0, wait));
  }

  /** Every transport's try: a PUBACK awaited from any of them wins over delivered, delivered over none. */
  private send(deviceId: string, request: RpcRequest): RpcDelivery {
    const outcomes = this.transports.map((t) => {
      const d = t.sendRpc(deviceId, request);
      return d === true ? 'delivered' : d === false ? 'none' : d;
    });
    if (outcomes.includes('awaitingAck')) return 'awaitingAck';
    return outcomes.includes('delivered') ? 'delivered' : 'none';
  }

  /** The device's PUBACK of a request (QoS 1). */
  acknowledged(deviceId: string, requestId: number): void {
    const key = `${deviceId}:${requestId}`;
    const p = this.pending.get(key);
    if (p?.awaitingAck) this.delivered(key, p);
  }

  /** A session of the device can now take RPC: deliver what waits for it. */
  deviceReady(deviceId: string): void {
    for (const [key, p] of this.pending)
      if (p.deviceId === deviceId && !p.delivered && !p.awaitingAck)
        this.dispatch(deviceId, Number(key.split(':')[1]));
  }

  /**
   * The device's answer to a two-way request. Resolves false if nothing waited for it; for a persistent
   * request, only once the answer is on disk (the transport acknowledges it after that). An answer that
   * cannot be stored is refused with the request left as it was, so the device can answer again.
   */
  async respond(deviceId: string, requestId: number, result: unknown): Promise<boolean> {
    const key = `${deviceId}:${requestId}`;
    const p = this.pending.get(key);
    if (!p) return false;
    if (!p.oneway) this.ctx.events.emit('rpcResponse', { deviceId, id: requestId, response: result });
    if (!p.row) {
      this.settle(key, result);
      return true;
    }
    if (p.oneway) return true;
    const row = p.row;
    let response: string;
    try {
      response = JSON.stringify(result ?? null);
    } catch (err) {
      throw invalidArgument(`The RPC answer cannot be stored: ${(err as Error).message}`);
    }
    const stored = { ...row, status: 'SUCCESSFUL' as const, response };
    // no timer may move it on while the answer is written
    this.untrack(key);
    try {
      await this.storage?.admit();
      await this.store.update(stored);
    } catch (err) {
      if (!this.pending.has(key) && !this.stopped) this.track(row, p.delivered);
      throw err;
    }
    Object.assign(row, stored);
    this.emit(stored);
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

  get(rpcId: string, actor: Principal): PersistentRpc {
    const row = this.store.find(rpcId);
    if (!row) throw notFound(`Rpc with id [${rpcId}] is not found`);
    this.checkDevice(row.device_id, actor);
    return this.store.toRpc(row);
  }

  page(
    deviceId: string,
    q: PageQuery,
    status: RpcStatus | undefined,
    actor: Principal,
  ): PageData<PersistentRpc> {
    this.checkDevice(deviceId, actor);
    return this.store.page(deviceId, q, status);
  }

  /** Deletes a persistent request (delivered or not); the rule engine gets RPC_DELETED. */
  async delete(rpcId: string, actor: Principal): Promise<void> {
    requireTenantAdmin(actor);
    const row = this.store.find(rpcId);
    if (!row) throw notFound(`Rpc with id [${rpcId}] is not found`);
    this.untrack(`${row.device_id}:${row.request_id}`);
    await this.store.delete(rpcId);
    this.emitMsg(this.statusMsg({ ...this.store.toRpc(row), status: 'DELETED' }, 'RPC_DELETED'));
    this.ctx.events.emit('rpcStatus', { id: row.id, deviceId: row.device_id, status: 'DELETED' });
  }

  async applyRetention(retentionDays: number): Promise<number> {
    if (retentionDays <= 0) return 0;
    return this.store.purgeFinishedBefore(this.ctx.now() - retentionDays * 86_400_000);
  }

  stop(): void {
    this.stopped = true;
    for (const [key, p] of [...this.pending]) {
      if (p.row)
        this.untrack(key); // stays on disk for the next start
      else this.fail(key, new PlatformError(503, ErrorCode.GENERAL, 'Sandboard is stopping'));
    }
  }

  private track(row: RpcRow, delivered: boolean): void {
    const key = `${row.device_id}:${row.request_id}`;
    let params: unknown = {};
    try {
      params = row.params === null ? {} : (JSON.parse(row.params) as unknown);
    } catch {
      // kept as stored
    }
    const expiry = setTimeout(() => {
      const p = this.pending.get(key);
      if (!p?.row) return;
      this.untrack(key);
      void this.setStatus(p.row, 'EXPIRED');
    }, row.expiration_time - this.ctx.now());
    this.pending.set(key, {
      deviceId: row.device_id,
      request: { id: row.request_id, method: row.method, params },
      oneway: row.oneway === 1,
      delivered,
      awaitingAck: false,
      expiry,
      row,
    });
  }

  private untrack(key: string): void {
    const p = this.pending.get(key);
    if (!p) return;
    clearTimeout(p.expiry);
    clearTimeout(p.deliveryTimer);
    this.pending.delete(key);
  }

  private delivered(key: string, p: Pending): void {
    clearTimeout(p.deliveryTimer);
    p.awaitingAck = false;
    p.delivered = true;
    if (p.oneway) this.untrack(key);
    void this.setStatus(p.row!, 'DELIVERED');
  }

  /** No PUBACK in time: TIMEOUT and a re-send while retries last, then FAILED (ThingsBoard's rules). */
  private deliveryTimedOut(key: string): void {
    const p = this.pending.get(key);
    if (!p?.row || !p.awaitingAck) return;
    p.awaitingAck = false;
    const max = Math.min(p.row.retries ?? this.settings.maxRetries, this.settings.maxRetries);
    if (p.row.attempts >= max) {
      this.untrack(key);
      p.row.response = JSON.stringify({
        error: `There was a Timeout and all retry attempts have been exhausted. Retry attempts set: ${max}`,
      });
      void this.setStatus(p.row, 'FAILED');
      return;
    }
    p.row.attempts++;
    void this.setStatus(p.row, 'TIMEOUT');
    this.dispatch(p.deviceId, p.request.id);
  }

  /** Moves a persistent request on, on disk first; the rule engine hears of it once it is durable. */
  private async setStatus(row: RpcRow, status: RpcStatus): Promise<void> {
    if (isFinal(row)) return;
    row.status = status;
    const snapshot = { ...row };
    try {
      await this.store.update(snapshot);
      this.emit(snapshot);
    } catch (err) {
      // The store refused the write (it says why on its own): the request stays as memory has it.
      process.emitWarning(`RPC ${row.id}: status ${status} not stored: ${(err as Error).message}`);
    }
  }

  private emit(row: RpcRow): void {
    const rpc = this.store.toRpc(row);
    this.emitMsg(this.statusMsg(rpc, `RPC_${row.status}`));
    this.ctx.events.emit('rpcStatus', { id: row.id, deviceId: row.device_id, status: row.status });
    if (isFinal(row))
      this.ctx.events.emit('rpcResult', {
        deviceId: row.device_id,
        id: row.request_id,
        method: row.method,
        status: row.status,
        ...(row.response === null ? {} : { response: rpc.response }),
      });
  }

  private emitResult(p: Pending, status: string, response?: unknown): void {
    this.ctx.events.emit('rpcResult', {
      deviceId: p.deviceId,
      id: p.request.id,
      method: p.request.method,
      status,
      ...(response === undefined ? {} : { response }),
    });
  }

  private statusMsg(
    rpc: PersistentRpc | (Omit<PersistentRpc, 'status'> & { status: string }),
    type: string,
  ): TbMsg {
    return newMsg(type as TbMsg['type'], { entityType: 'DEVICE', id: rpc.deviceId.id }, rpc);
  }

  private emitMsg(msg: TbMsg): void {
    if (this.submit) this.submit(msg);
    else this.early.push(msg);
  }

  private requestMsg(
    device: { id: string; name: string; type: string },
    request: RpcRequest,
    oneway: boolean,
    expirationTime: number,
    persistent: boolean,
    rpcId?: string,
  ): TbMsg {
    return newMsg(
      'RPC_CALL_FROM_SERVER_TO_DEVICE',
      { entityType: 'DEVICE', id: device.id },
      { method: request.method, params: request.params },
      {
        requestId: String(request.id),
        oneway: String(oneway),
        expirationTime: String(expirationTime),
        persistent: String(persistent),
        ...(rpcId ? { requestUUID: rpcId } : {}),
        deviceName: device.name,
        deviceType: device.type,
      },
    );
  }

  private checkDevice(deviceId: string, actor: Principal): void {
    const device = this.ctx.db.get<{ customer_id: string | null }>(
      'SELECT customer_id FROM devices WHERE id = ?',
      [deviceId],
    );
    if (!device) throw notFound(`Device with id [${deviceId}] is not found`);
    requireCustomerAccess(actor, device.customer_id);
  }

  private forgetDevice(deviceId: string): void {
    for (const [key, p] of [...this.pending]) {
      if (p.deviceId !== deviceId) continue;
      if (p.row) this.untrack(key);
      else this.fail(key, notFound(`Device with id [${deviceId}] was deleted`));
    }
  }

  private settle(key: string, result: unknown): void {
    const p = this.pending.get(key);
    if (!p) return;
    this.untrack(key);
    this.emitResult(p, 'SUCCESSFUL', result);
    p.resolve?.(result);
  }

  private fail(key: string, err: Error): void {
    const p = this.pending.get(key);
    if (!p) return;
    this.untrack(key);
    if (!p.row) this.emitResult(p, 'FAILED', { error: err.message });
    p.reject?.(err);
  }
}

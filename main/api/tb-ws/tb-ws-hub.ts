import type { TsValue } from '../../../shared/schemas/entity-query.ts';
import type { AttributeScope } from '../../../shared/schemas/telemetry.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import type { AlarmEvent, PlatformEventMap } from '../../platform/events.ts';
import type { Services } from '../../platform/services.ts';

/** How long changes gather before each subscription gets one frame with all of them. */
export const FLUSH_MS = 20;
/** points of one key kept for one flush (a burst beyond it keeps its newest) */
const MAX_PENDING_POINTS = 1000;

/** ThingsBoard's getValueAsString: text as is, numbers and booleans printed, JSON as JSON. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** A session as subscriptions see it: who it is, and where its frames go. */
export interface WsSink {
  readonly principal: Principal | null;
  deliver(frame: string): void;
}

/** Attribute changes of one entity gathered for a flush: scope -> key -> value. */
export type PendingAttributes = Map<AttributeScope, Map<string, TsValue>>;

/** What a flush hands each dirty subscription: the entities' gathered changes, and a shared cache. */
export interface FlushInput {
  ts(entityId: string): Map<string, TsValue[]> | undefined;
  attributes(entityId: string): PendingAttributes | undefined;
  /** serialised fragments shared by subscriptions that follow the same entity and keys */
  readonly cache: Map<string, string>;
}

/**
 * One live subscription (one cmdId of a session). It tells the hub which entities it follows; the hub
 * marks it dirty when one of them changes and asks it for its frame once per flush.
 */
export abstract class LiveSub {
  readonly sink: WsSink;
  readonly cmdId: number;
  /** entities with changes since the last flush */
  protected readonly dirty = new Set<string>();
  constructor(sink: WsSink, cmdId: number) {
    this.sink = sink;
    this.cmdId = cmdId;
  }
  /** Whether a time series change of these keys concerns it (then the hub flushes it). */
  wantsTs(_entityId: string, _keys: string[]): boolean {
    return false;
  }
  wantsAttributes(_entityId: string, _scope: AttributeScope, _keys: string[]): boolean {
    return false;
  }
  /** An alarm changed: true when it should be flushed (it re-reads what it shows then). */
  wantsAlarm(_event: AlarmEvent): boolean {
    return false;
  }
  /** An entity was created, changed or deleted: true when it should be flushed. */
  wantsEntityChange(): boolean {
    return false;
  }
  markDirty(entityId: string): void {
    this.dirty.add(entityId);
  }
  /** The frame for what changed, or null when nothing it shows did. */
  abstract flush(input: FlushInput): string | null;
  /** Entity ids it follows for time series and attributes. */
  abstract entities(): Iterable<string>;
  /** A followed entity may no longer be seen by this session's user, or is gone. */
  forget(_entityId: string): void {}
}

/**
 * The subscriptions of every ThingsBoard WebSocket session, indexed by entity id, fed by the platform's
 * events. A change costs a map lookup when nobody follows the entity; followers are flushed together
 * every FLUSH_MS, one frame per subscription, with fragments shared between subscriptions alike.
 */
export class TbWsHub {
  private readonly byEntity = new Map<string, Set<LiveSub>>();
  /** subscriptions refreshed by alarm or entity changes (few: counts, alarm tables, alarm status) */
  private readonly watchers = new Set<LiveSub>();
  private readonly dirty = new Set<LiveSub>();
  private pendingTs = new Map<string, Map<string, TsValue[]>>();
  private pendingAttributes = new Map<string, PendingAttributes>();
  private timer: NodeJS.Timeout | null = null;
  private readonly detach: () => void;
  readonly services: Services;
  /** called when users' sessions end (logout, password change): their sockets close */
  onSessionsEnded: (userIds: string[]) => void = () => {};

  constructor(services: Services) {
    this.services = services;
    const events = services.ctx.events;
    const handlers: { [K in keyof PlatformEventMap]?: (...args: PlatformEventMap[K]) => void } = {
      telemetry: (e) => this.onTelemetry(e.deviceId, e.entries),
      attributes: (e) => this.onAttributes(e.deviceId, e.scope, e.values, e.ts),
      alarm: (e) => {
        for (const sub of this.watchers) if (sub.wantsAlarm(e)) this.markDirty(sub);
      },
      deviceSaved: (e) => {
        this.recheck(e.deviceId);
        this.entityChanged();
      },
      deviceDeleted: (e) => {
        for (const sub of [...(this.byEntity.get(e.deviceId) ?? [])]) sub.forget(e.deviceId);
        this.byEntity.delete(e.deviceId);
        this.entityChanged();
      },
      relation: () => this.entityChanged(),
      sessionsEnded: (e) => this.onSessionsEnded(e.userIds),
    };
    for (const [name, handler] of Object.entries(handlers)) events.on(name as 'telemetry', handler as never);
    this.detach = () => {
      for (const [name, handler] of Object.entries(handlers))
        events.off(name as 'telemetry', handler as never);
    };
  }

  /** Indexes a subscription under the entities it follows (call again after they change). */
  follow(sub: LiveSub): void {
    for (const id of sub.entities()) {
      let set = this.byEntity.get(id);
      if (!set) this.byEntity.set(id, (set = new Set()));
      set.add(sub);
    }
  }

  watch(sub: LiveSub): void {
    this.watchers.add(sub);
  }

  remove(sub: LiveSub): void {
    for (const id of sub.entities()) {
      const set = this.byEntity.get(id);
      if (!set) continue;
      set.delete(sub);
      if (set.size === 0) this.byEntity.delete(id);
    }
    this.watchers.delete(sub);
    this.dirty.delete(sub);
  }

  markDirty(sub: LiveSub): void {
    this.dirty.add(sub);
    if (!this.timer) this.timer = setTimeout(() => this.flush(), FLUSH_MS);
  }

  private onTelemetry(entityId: string, entries: { ts: number; values: Record<string, unknown> }[]): void {
    const subs = this.byEntity.get(entityId);
    if (!subs) return;
    let pending = this.pendingTs.get(entityId);
    if (!pending) this.pendingTs.set(entityId, (pending = new Map()));
    for (const { ts, values } of entries) {
      for (const key in values) {
        let points = pending.get(key);
        if (!points) pending.set(key, (points = []));
        if (points.length >= MAX_PENDING_POINTS) points.shift();
        points.push({ ts, value: valueText(values[key]) });
      }
    }
    const keys = [...pending.keys()];
    for (const sub of subs) {
      if (sub.wantsTs(entityId, keys)) {
        sub.markDirty(entityId);
        this.markDirty(sub);
      }
    }
  }

  private onAttributes(entityId: string, scope: AttributeScope, values: Record<string, unknown>, ts: number) {
    const subs = this.byEntity.get(entityId);
    if (!subs) return;
    let pending = this.pendingAttributes.get(entityId);
    if (!pending) this.pendingAttributes.set(entityId, (pending = new Map()));
    let inScope = pending.get(scope);
    if (!inScope) pending.set(scope, (inScope = new Map()));
    for (const key in values) inScope.set(key, { ts, value: valueText(values[key]) });
    const keys = Object.keys(values);
    for (const sub of subs) {
      if (sub.wantsAttributes(entityId, scope, keys)) {
        sub.markDirty(entityId);
        this.markDirty(sub);
      }
    }
  }

  private entityChanged(): void {
    for (const sub of this.watchers) if (sub.wantsEntityChange()) this.markDirty(sub);
  }

  /** A device changed (its customer perhaps): subscriptions whose user may no longer see it drop it. */
  private recheck(entityId: string): void {
    const subs = this.byEntity.get(entityId);
    if (!subs) return;
    const entity = this.services.directory.find('DEVICE', entityId);
    for (const sub of [...subs]) {
      const principal = sub.sink.principal;
      if (!entity || !principal || !this.services.directory.allows(principal, entity, 'read')) {
        sub.forget(entityId);
        subs.delete(sub);
      }
    }
    if (subs.size === 0) this.byEntity.delete(entityId);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const subs = [...this.dirty];
    this.dirty.clear();
    const ts = this.pendingTs;
    const attributes = this.pendingAttributes;
    this.pendingTs = new Map();
    this.pendingAttributes = new Map();
    const input: FlushInput = {
      ts: (id) => ts.get(id),
      attributes: (id) => attributes.get(id),
      cache: new Map(),
    };
    for (const sub of subs) {
      let frame: string | null;
      try {
        frame = sub.flush(input);
      } catch {
        frame = null;
      }
      if (frame) sub.sink.deliver(frame);
    }
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.detach();
  }
}

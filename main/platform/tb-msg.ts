import { randomUUID } from 'node:crypto';
import type { MsgType } from '../../shared/rule-engine.ts';

export interface Originator {
  entityType: string;
  id: string;
}

/** A rule engine message: originator, type, data (parsed JSON) and string metadata. */
export interface TbMsg {
  id: string;
  ts: number;
  /** ThingsBoard's message types, or any custom type a node gives it. */
  type: MsgType | (string & {});
  originator: Originator;
  data: unknown;
  metadata: Record<string, string>;
  /** The chain to start in instead of the root (a device profile's default rule chain). */
  ruleChainId?: string;
  /** ThingsBoard's queue name (Main, HighPriority, SequentialByOriginator). */
  queueName?: string;
  /** The id of the message this one descends from through splits and delays; its own id when absent. */
  traceId?: string;
  /** The id of the message this one was made from (a split, a delay). */
  parentId?: string;
}

const NO_KEYS: object = Object.freeze(Object.create(null));

/**
 * A new message id as one flat string. Node's randomUUID() builds it by concatenation: a tree of ~20
 * strings (~490 bytes of heap), which every message carries through each young-generation GC, and which
 * the MQTT inspector keeps for each recorded publish. Looked up as a property name, V8 flattens it (~66 bytes).
 */
export function newMsgId(): string {
  const id = randomUUID();
  void (id in NO_KEYS);
  return id;
}

export function newMsg(
  type: MsgType | (string & {}),
  originator: Originator,
  data: unknown,
  metadata: Record<string, string> = {},
): TbMsg {
  return { id: newMsgId(), ts: Date.now(), type, originator, data, metadata };
}

/** A new message made from another (a split element, a delayed copy): new id, same trace. */
export function childMsg(parent: TbMsg, patch: Partial<TbMsg> = {}): TbMsg {
  return {
    ...parent,
    ...patch,
    id: newMsgId(),
    traceId: parent.traceId ?? parent.id,
    parentId: parent.id,
  };
}

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

export function newMsg(
  type: MsgType | (string & {}),
  originator: Originator,
  data: unknown,
  metadata: Record<string, string> = {},
): TbMsg {
  return { id: randomUUID(), ts: Date.now(), type, originator, data, metadata };
}

/** A new message made from another (a split element, a delayed copy): new id, same trace. */
export function childMsg(parent: TbMsg, patch: Partial<TbMsg> = {}): TbMsg {
  return {
    ...parent,
    ...patch,
    id: randomUUID(),
    traceId: parent.traceId ?? parent.id,
    parentId: parent.id,
  };
}

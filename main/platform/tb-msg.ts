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
  type: MsgType;
  originator: Originator;
  data: unknown;
  metadata: Record<string, string>;
}

export function newMsg(
  type: MsgType,
  originator: Originator,
  data: unknown,
  metadata: Record<string, string> = {},
): TbMsg {
  return { id: randomUUID(), ts: Date.now(), type, originator, data, metadata };
}

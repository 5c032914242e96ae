import type { MsgType } from '../../shared/rule-engine.ts';
import type { AlarmChangeKind } from '../../shared/schemas/alarms.ts';
import type { Principal } from '../platform/auth/principal.ts';
import type { AlarmEvent, PlatformEvents, RelationEvent } from '../platform/events.ts';
import { newMsg, type TbMsg } from '../platform/tb-msg.ts';

/** The message type of each alarm change, with ThingsBoard 4.x's names. */
const ALARM_MSG: Record<AlarmChangeKind, MsgType> = {
  CREATED: 'ALARM_CREATED',
  UPDATED: 'ALARM_UPDATED',
  SEVERITY_UPDATED: 'ALARM_SEVERITY_UPDATED',
  ACK: 'ALARM_ACK',
  CLEAR: 'ALARM_CLEAR',
  ASSIGNED: 'ALARM_ASSIGNED',
  UNASSIGNED: 'ALARM_UNASSIGNED',
  DELETED: 'ALARM_DELETE',
};

/** The flags ThingsBoard's alarm messages carry (what push to edge reads to pick ADDED / UPDATED / ALARM_CLEAR). */
const ALARM_FLAGS: Partial<Record<AlarmChangeKind, Record<string, string>>> = {
  CREATED: { isNewAlarm: 'true' },
  UPDATED: { isExistingAlarm: 'true' },
  SEVERITY_UPDATED: { isExistingAlarm: 'true', isSeverityUpdated: 'true' },
  CLEAR: { isClearedAlarm: 'true' },
};

export interface UserNames {
  email: string;
  first_name: string | null;
  last_name: string | null;
}

/** ThingsBoard's metadata of a user's action: userId, userName, userEmail, userFirstName, userLastName. */
function userMetadata(actor: Principal, user: UserNames | undefined): Record<string, string> {
  const out: Record<string, string> = { userId: actor.userId, userName: actor.email, userEmail: actor.email };
  if (user?.first_name) out.userFirstName = user.first_name;
  if (user?.last_name) out.userLastName = user.last_name;
  return out;
}

export function alarmMessage(e: AlarmEvent, user: UserNames | undefined): TbMsg {
  const metadata: Record<string, string> = {
    ...(e.actor ? userMetadata(e.actor, user) : {}),
    ...ALARM_FLAGS[e.kind],
    entityName: e.alarm.type,
    entityType: 'ALARM',
  };
  if (e.alarm.customerId) metadata.customerId = e.alarm.customerId.id;
  return newMsg(ALARM_MSG[e.kind], e.alarm.originator, e.alarm, metadata);
}

/** A relation change is told to both ends, as ThingsBoard's logEntityRelationAction does. */
export function relationMessages(e: RelationEvent, user: UserNames | undefined): TbMsg[] {
  const type: MsgType = e.action === 'DELETED' ? 'RELATION_DELETED' : 'RELATION_ADD_OR_UPDATE';
  const metadata = e.actor ? userMetadata(e.actor, user) : {};
  return [e.relation.from, e.relation.to].map((end) => newMsg(type, end, e.relation, metadata));
}

/**
 * Users' alarm and relation changes (REST, UI) become rule engine messages, as ThingsBoard's entity
 * action service makes them; changes the platform makes itself (actor null, e.g. a rule node raising an
 * alarm) do not, since their maker emits its own. Returns the unsubscribe.
 */
export function subscribeEntityMessages(
  events: PlatformEvents,
  findUser: (id: string) => UserNames | undefined,
  submit: (msg: TbMsg) => void,
): () => void {
  const onAlarm = (e: AlarmEvent) => {
    if (e.actor) submit(alarmMessage(e, findUser(e.actor.userId)));
  };
  const onRelation = (e: RelationEvent) => {
    if (e.actor) for (const msg of relationMessages(e, findUser(e.actor.userId))) submit(msg);
  };
  events.on('alarm', onAlarm);
  events.on('relation', onRelation);
  return () => {
    events.off('alarm', onAlarm);
    events.off('relation', onRelation);
  };
}

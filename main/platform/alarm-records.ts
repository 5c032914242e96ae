/** How alarms are stored and read back: the row, its JSON shapes, and the SQL of status and severity filters. */
import {
  ALARM_SEARCH_STATUSES,
  ALARM_SEVERITIES,
  type Alarm,
  type AlarmInfo,
  type AlarmSearchStatus,
  type AlarmSeverity,
  type AlarmStatus,
} from '../../shared/schemas/alarms.ts';
import type { Param } from '../store/durable-db.ts';
import { ref } from './context.ts';
import type { EntityDirectory } from './entity-directory.ts';
import { badRequestParams } from './errors.ts';

export interface AlarmRow {
  id: string;
  created_time: number;
  type: string;
  originator_id: string;
  originator_type: string;
  customer_id: string | null;
  severity: AlarmSeverity;
  acknowledged: number;
  cleared: number;
  assignee_id: string | null;
  start_ts: number;
  end_ts: number;
  ack_ts: number;
  clear_ts: number;
  assign_ts: number;
  details: string | null;
  propagate: number;
  propagate_to_owner: number;
  propagate_to_tenant: number;
  propagate_relation_types: string;
}

export function alarmStatus(cleared: boolean, acknowledged: boolean): AlarmStatus {
  if (cleared) return acknowledged ? 'CLEARED_ACK' : 'CLEARED_UNACK';
  return acknowledged ? 'ACTIVE_ACK' : 'ACTIVE_UNACK';
}

/** Severity rank: CRITICAL is the highest (5), INDETERMINATE the lowest (1). */
export function severityRank(severity: AlarmSeverity): number {
  return ALARM_SEVERITIES.length - ALARM_SEVERITIES.indexOf(severity);
}

export const STATUS_SQL = `CASE WHEN e.cleared = 1 THEN CASE WHEN e.acknowledged = 1 THEN 'CLEARED_ACK' ELSE 'CLEARED_UNACK' END
  ELSE CASE WHEN e.acknowledged = 1 THEN 'ACTIVE_ACK' ELSE 'ACTIVE_UNACK' END END`;
export const SEVERITY_RANK_SQL = `CASE e.severity ${ALARM_SEVERITIES.map((s) => `WHEN '${s}' THEN ${severityRank(s)}`).join(' ')} ELSE 0 END`;
export const ORIGINATOR_NAME_SQL = `COALESCE((SELECT name FROM devices WHERE id = e.originator_id),
  (SELECT name FROM assets WHERE id = e.originator_id), (SELECT name FROM edges WHERE id = e.originator_id),
  (SELECT title FROM customers WHERE id = e.originator_id), (SELECT email FROM users WHERE id = e.originator_id), '')`;

function parseDetails(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function parseTypes(text: string): string[] {
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? parsed.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}

export function toAlarm(row: AlarmRow, tenantId: string): Alarm {
  const acknowledged = row.acknowledged === 1;
  const cleared = row.cleared === 1;
  return {
    id: ref('ALARM', row.id),
    createdTime: row.created_time,
    tenantId: ref('TENANT', tenantId),
    customerId: row.customer_id ? ref('CUSTOMER', row.customer_id) : null,
    name: row.type,
    type: row.type,
    originator: { entityType: row.originator_type, id: row.originator_id },
    severity: row.severity,
    acknowledged,
    cleared,
    assigneeId: row.assignee_id ? ref('USER', row.assignee_id) : null,
    startTs: row.start_ts,
    endTs: row.end_ts,
    ackTs: row.ack_ts,
    clearTs: row.clear_ts,
    assignTs: row.assign_ts,
    details: parseDetails(row.details),
    propagate: row.propagate === 1,
    propagateToOwner: row.propagate_to_owner === 1,
    propagateToTenant: row.propagate_to_tenant === 1,
    propagateRelationTypes: parseTypes(row.propagate_relation_types),
    status: alarmStatus(cleared, acknowledged),
  };
}

interface AssigneeRow {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
}

/** Alarms with their originator's name and label and their assignee (AlarmInfo). */
export class AlarmInfoReader {
  private readonly directory: EntityDirectory;
  private readonly tenantId: string;
  private readonly findUser: (id: string) => AssigneeRow | undefined;

  constructor(
    directory: EntityDirectory,
    tenantId: string,
    findUser: (id: string) => AssigneeRow | undefined,
  ) {
    this.directory = directory;
    this.tenantId = tenantId;
    this.findUser = findUser;
  }

  info(row: AlarmRow): AlarmInfo {
    const originator = this.directory.find(row.originator_type, row.originator_id);
    const user = row.assignee_id ? this.findUser(row.assignee_id) : undefined;
    const name = originator?.name ?? null;
    const label = originator?.label ?? null;
    return {
      ...toAlarm(row, this.tenantId),
      originatorName: name,
      originatorLabel: label,
      originatorDisplayName: label || name,
      assignee: user
        ? {
            id: ref('USER', user.id),
            firstName: user.first_name,
            lastName: user.last_name,
            email: user.email,
          }
        : null,
    };
  }
}

/** Parses a comma list of enum values (the v2 listings' statusList, severityList); 400 naming a wrong one. */
export function parseEnumList<T extends string>(
  text: string | undefined,
  allowed: readonly T[],
  what: string,
): T[] {
  if (!text) return [];
  const values = text
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  for (const v of values) {
    if (!(allowed as readonly string[]).includes(v)) {
      throw badRequestParams(`Invalid ${what} '${v}': one of ${allowed.join(', ')}`);
    }
  }
  return values as T[];
}

export const parseSearchStatusList = (text: string | undefined) =>
  parseEnumList(text, ALARM_SEARCH_STATUSES, 'alarm status');
export const parseSeverityList = (text: string | undefined) =>
  parseEnumList(text, ALARM_SEVERITIES, 'alarm severity');

/** What an alarm listing selects (every field optional). */
export interface AlarmSelection {
  /** alarms shown on this entity: raised by it or propagated to it */
  entityId?: string;
  /** only alarms raised by these entities (the alarm data query without searchPropagatedAlarms) */
  originatorIds?: string[];
  /** shown on any of these entities */
  entityIds?: string[];
  customerId?: string;
  searchStatus?: AlarmSearchStatus;
  status?: AlarmStatus;
  statusList?: AlarmSearchStatus[];
  severityList?: AlarmSeverity[];
  typeList?: string[];
  assigneeId?: string;
  startTime?: number;
  endTime?: number;
}

/** The FROM and WHERE of a selection (the alarms table is aliased e). */
export function selectionSql(s: AlarmSelection): { from: string; where: string[]; params: Param[] } {
  let from = 'FROM alarms e';
  const where: string[] = [];
  const params: Param[] = [];
  if (s.entityId) {
    from += ' JOIN entity_alarms ea ON ea.alarm_id = e.id';
    where.push('ea.entity_id = ?');
    params.push(s.entityId);
  }
  if (s.entityIds) {
    where.push(
      'e.id IN (SELECT alarm_id FROM entity_alarms WHERE entity_id IN (SELECT value FROM json_each(?)))',
    );
    params.push(JSON.stringify(s.entityIds));
  }
  if (s.originatorIds) {
    where.push('e.originator_id IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(s.originatorIds));
  }
  if (s.customerId) {
    where.push('e.customer_id = ?');
    params.push(s.customerId);
  }
  const statuses = [...(s.statusList ?? []), ...(s.searchStatus ? [s.searchStatus] : [])];
  const has = (v: AlarmSearchStatus) => statuses.includes(v);
  if (!has('ANY')) {
    if (has('ACTIVE') && !has('CLEARED')) where.push('e.cleared = 0');
    if (has('CLEARED') && !has('ACTIVE')) where.push('e.cleared = 1');
    if (has('ACK') && !has('UNACK')) where.push('e.acknowledged = 1');
    if (has('UNACK') && !has('ACK')) where.push('e.acknowledged = 0');
  }
  if (s.status) {
    where.push('e.cleared = ? AND e.acknowledged = ?');
    params.push(s.status.startsWith('CLEARED') ? 1 : 0, s.status.endsWith('_ACK') ? 1 : 0);
  }
  if (s.severityList && s.severityList.length > 0) {
    where.push('e.severity IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(s.severityList));
  }
  if (s.typeList && s.typeList.length > 0) {
    where.push('e.type IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(s.typeList));
  }
  if (s.assigneeId) {
    where.push('e.assignee_id = ?');
    params.push(s.assigneeId);
  }
  if (s.startTime !== undefined) {
    where.push('e.created_time >= ?');
    params.push(s.startTime);
  }
  if (s.endTime !== undefined) {
    where.push('e.created_time <= ?');
    params.push(s.endTime);
  }
  return { from, where, params };
}

/** Sort properties of the alarm listings, as SQL. */
export const ALARM_SORT_COLUMNS: Record<string, string> = {
  createdTime: 'e.created_time',
  startTs: 'e.start_ts',
  endTs: 'e.end_ts',
  type: 'e.type',
  ackTs: 'e.ack_ts',
  clearTs: 'e.clear_ts',
  severity: SEVERITY_RANK_SQL,
  status: STATUS_SQL,
  originatorName: ORIGINATOR_NAME_SQL,
  assignee: '(SELECT email FROM users WHERE id = e.assignee_id)',
};

/** What textSearch looks in: the type, severity, status and originator name. */
export const ALARM_SEARCH_SQL = `(e.type || ' ' || e.severity || ' ' || ${STATUS_SQL} || ' ' || ${ORIGINATOR_NAME_SQL})`;

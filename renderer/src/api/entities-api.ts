/**
 * Assets, asset profiles, relations and alarms: ThingsBoard's REST paths, typed with the server's TypeBox
 * shapes and sent through the one API client's request helper.
 */
import type {
  Alarm,
  AlarmInfo,
  AlarmSearchStatus,
  AlarmSeverity,
  SaveAlarmRequest,
} from '../../../shared/schemas/alarms.ts';
import type { AlarmComment, AlarmCommentInfo } from '../../../shared/schemas/alarm-comments.ts';
import type {
  Asset,
  AssetProfileInfo,
  EntitySubtype,
  SaveAssetRequest,
} from '../../../shared/schemas/assets.ts';
import type { PageData } from '../../../shared/schemas/common.ts';
import type {
  EntityRelationInfo,
  SaveRelationRequest,
  SearchDirection,
} from '../../../shared/schemas/relations.ts';
import type { ApiClient } from './client.ts';

export type {
  Alarm,
  AlarmCommentInfo,
  AlarmInfo,
  AlarmSearchStatus,
  AlarmSeverity,
  Asset,
  AssetProfileInfo,
  EntityRelationInfo,
};

const enc = encodeURIComponent;

export interface EntityRef {
  entityType: string;
  id: string;
}

export interface AssetPageQuery {
  page: number;
  pageSize: number;
  textSearch?: string;
  sortProperty?: 'createdTime' | 'name' | 'type' | 'label';
  sortOrder?: 'ASC' | 'DESC';
  type?: string;
}

/** GET /api/v2/alarms (or of one entity): lists of statuses, severities and types. */
export interface AlarmPageQuery {
  page: number;
  pageSize: number;
  textSearch?: string;
  sortProperty?: 'createdTime' | 'severity' | 'type' | 'status' | 'originatorName';
  sortOrder?: 'ASC' | 'DESC';
  statusList?: AlarmSearchStatus[];
  severityList?: AlarmSeverity[];
  typeList?: string[];
  /** only the alarms shown on this entity (raised by it or propagated to it) */
  entity?: EntityRef;
}

// --- assets ----------------------------------------------------------------------------------------

/** The assets the user may see: the tenant's (administrator) or its customer's (customer user). */
export function assets(
  client: ApiClient,
  query: AssetPageQuery,
  customerId?: string,
): Promise<PageData<Asset>> {
  const path = customerId ? `/api/customer/${enc(customerId)}/assets` : '/api/tenant/assets';
  return client.request('GET', path, { query: { ...query } });
}

export function asset(client: ApiClient, id: string): Promise<Asset> {
  return client.request('GET', `/api/asset/${enc(id)}`);
}

export function saveAsset(client: ApiClient, body: SaveAssetRequest): Promise<Asset> {
  return client.request('POST', '/api/asset', { body });
}

export function deleteAsset(client: ApiClient, id: string): Promise<void> {
  return client.request('DELETE', `/api/asset/${enc(id)}`);
}

export function assetProfileInfos(client: ApiClient): Promise<PageData<AssetProfileInfo>> {
  return client.request('GET', '/api/assetProfileInfos', {
    query: { page: 0, pageSize: 1000, sortProperty: 'name', sortOrder: 'ASC' },
  });
}

export function assetTypes(client: ApiClient): Promise<EntitySubtype[]> {
  return client.request('GET', '/api/asset/types');
}

// --- relations -------------------------------------------------------------------------------------

/** Relations from (direction FROM) or to an entity, with the name of the other end. */
export function relations(
  client: ApiClient,
  entity: EntityRef,
  direction: SearchDirection,
): Promise<EntityRelationInfo[]> {
  const end = direction === 'FROM' ? 'from' : 'to';
  return client.request('GET', `/api/relations/info/${end}/${enc(entity.entityType)}/${enc(entity.id)}`);
}

export function saveRelation(client: ApiClient, body: SaveRelationRequest): Promise<void> {
  return client.request('POST', '/api/relation', { body });
}

export function deleteRelation(
  client: ApiClient,
  r: { from: EntityRef; to: EntityRef; type: string; typeGroup: string },
): Promise<void> {
  return client.request('DELETE', '/api/relation', {
    query: {
      fromId: r.from.id,
      fromType: r.from.entityType,
      toId: r.to.id,
      toType: r.to.entityType,
      relationType: r.type,
      relationTypeGroup: r.typeGroup,
    },
  });
}

// --- alarms ----------------------------------------------------------------------------------------

export function alarms(client: ApiClient, q: AlarmPageQuery): Promise<PageData<AlarmInfo>> {
  const { entity, statusList, severityList, typeList, ...rest } = q;
  const path = entity ? `/api/v2/alarm/${enc(entity.entityType)}/${enc(entity.id)}` : '/api/v2/alarms';
  const list = (values: string[] | undefined) => (values && values.length ? values.join(',') : undefined);
  return client.request('GET', path, {
    query: {
      ...rest,
      statusList: list(statusList),
      severityList: list(severityList),
      typeList: list(typeList),
    },
  });
}

/** How many alarms the user may see are active (the navigation's badge). */
export async function activeAlarmCount(client: ApiClient): Promise<number> {
  const page = await alarms(client, { page: 0, pageSize: 1, statusList: ['ACTIVE'] });
  return page.totalElements;
}

export function alarmTypes(client: ApiClient): Promise<PageData<EntitySubtype>> {
  return client.request('GET', '/api/alarm/types', { query: { page: 0, pageSize: 1000 } });
}

export function saveAlarm(client: ApiClient, body: SaveAlarmRequest): Promise<Alarm> {
  return client.request('POST', '/api/alarm', { body });
}

export function ackAlarm(client: ApiClient, id: string): Promise<AlarmInfo> {
  return client.request('POST', `/api/alarm/${enc(id)}/ack`);
}

export function clearAlarm(client: ApiClient, id: string): Promise<AlarmInfo> {
  return client.request('POST', `/api/alarm/${enc(id)}/clear`);
}

export function alarmInfo(client: ApiClient, id: string): Promise<AlarmInfo> {
  return client.request('GET', `/api/alarm/info/${enc(id)}`);
}

/** An alarm's comments, oldest first (GET /api/alarm/{alarmId}/comment). */
export function alarmComments(client: ApiClient, alarmId: string): Promise<PageData<AlarmCommentInfo>> {
  return client.request('GET', `/api/alarm/${enc(alarmId)}/comment`, {
    query: { page: 0, pageSize: 200, sortProperty: 'createdTime', sortOrder: 'ASC' },
  });
}

export function addAlarmComment(client: ApiClient, alarmId: string, text: string): Promise<AlarmComment> {
  return client.request('POST', `/api/alarm/${enc(alarmId)}/comment`, { body: { comment: { text } } });
}

export function deleteAlarmComment(client: ApiClient, alarmId: string, commentId: string): Promise<void> {
  return client.request('DELETE', `/api/alarm/${enc(alarmId)}/comment/${enc(commentId)}`);
}

export function deleteAlarm(client: ApiClient, id: string): Promise<boolean> {
  return client.request('DELETE', `/api/alarm/${enc(id)}`);
}

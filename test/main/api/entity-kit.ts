/** Helpers for the asset, relation, alarm and entity query tests: create entities over the real REST API. */
import { okJson, type ApiPlatform, type EntityRef } from './api-kit.ts';

export interface AssetJson {
  id: EntityRef;
  createdTime: number;
  tenantId: EntityRef;
  customerId: EntityRef;
  name: string;
  type: string;
  label: string | null;
  assetProfileId: EntityRef;
  additionalInfo: Record<string, unknown>;
}

export interface AlarmJson {
  id: EntityRef;
  createdTime: number;
  tenantId: EntityRef;
  customerId: EntityRef | null;
  name: string;
  type: string;
  originator: EntityRef;
  severity: string;
  acknowledged: boolean;
  cleared: boolean;
  assigneeId: EntityRef | null;
  startTs: number;
  endTs: number;
  ackTs: number;
  clearTs: number;
  assignTs: number;
  details: unknown;
  propagate: boolean;
  propagateToOwner: boolean;
  propagateToTenant: boolean;
  propagateRelationTypes: string[];
  status: string;
}

export interface AlarmInfoJson extends AlarmJson {
  originatorName: string | null;
  originatorLabel: string | null;
  originatorDisplayName: string | null;
  assignee: { id: EntityRef; firstName: string | null; lastName: string | null; email: string } | null;
}

export interface RelationJson {
  from: EntityRef;
  to: EntityRef;
  type: string;
  typeGroup: string;
  additionalInfo: unknown;
}

export async function createAsset(
  p: ApiPlatform,
  token: string,
  body: Record<string, unknown>,
): Promise<AssetJson> {
  return okJson<AssetJson>(p.http('/api/asset', { method: 'POST', token, json: body }));
}

export async function relate(
  p: ApiPlatform,
  token: string,
  from: EntityRef,
  to: EntityRef,
  type = 'Contains',
): Promise<void> {
  const res = await p.http('/api/relation', { method: 'POST', token, json: { from, to, type } });
  if (res.status !== 200) throw new Error(`relation failed: ${res.status} ${await res.text()}`);
}

export async function raiseAlarm(
  p: ApiPlatform,
  token: string,
  originator: EntityRef,
  body: Record<string, unknown> = {},
): Promise<AlarmJson> {
  return okJson<AlarmJson>(
    p.http('/api/alarm', {
      method: 'POST',
      token,
      json: { type: 'High Temperature', severity: 'MAJOR', originator, ...body },
    }),
  );
}

let counter = 0;
/** A name no other test of the run uses. */
export const unique = (prefix: string) => `${prefix} ${process.pid}-${++counter}-${Date.now() % 100_000}`;

/**
 * ThingsBoard 4.3's calculated fields over REST (CalculatedFieldController): a device's, asset's or
 * profile's fields, save, delete, test run on sample arguments, and the kept debug events.
 */
import { CF_TYPES, type CfType } from '../../../shared/calculated-fields.ts';
import type { PageData } from '../../../shared/schemas/common.ts';
import type { ApiClient } from './client.ts';

const enc = encodeURIComponent;

export { CF_TYPES, type CfType };

export interface EntityRef {
  entityType: string;
  id: string;
}

export interface CalculatedField {
  id?: { entityType: 'CALCULATED_FIELD'; id: string };
  createdTime?: number;
  entityId: EntityRef;
  type: CfType;
  name: string;
  debugSettings?: { failuresEnabled?: boolean; allEnabled?: boolean } | null;
  configuration: Record<string, unknown> & { type: CfType };
  version?: number;
}

export interface CfDebugEvent {
  id: { id: string };
  createdTime: number;
  body: { arguments?: string; result?: string | null; error?: string | null; entityId?: string };
}

export function calculatedFields(client: ApiClient, entity: EntityRef): Promise<PageData<CalculatedField>> {
  return client.request('GET', `/api/${enc(entity.entityType)}/${enc(entity.id)}/calculatedFields`, {
    query: { pageSize: 100, page: 0, sortProperty: 'createdTime', sortOrder: 'ASC' },
  });
}

export function saveCalculatedField(client: ApiClient, body: CalculatedField): Promise<CalculatedField> {
  return client.request('POST', '/api/calculatedField', { body });
}

export function deleteCalculatedField(client: ApiClient, id: string): Promise<void> {
  return client.request('DELETE', `/api/calculatedField/${enc(id)}`);
}

export function testCalculatedField(
  client: ApiClient,
  body: { type?: string; expression: string; arguments: Record<string, unknown> },
): Promise<{ output: string; error: string }> {
  return client.request('POST', '/api/calculatedField/testScript', { body });
}

export function calculatedFieldDebugEvents(client: ApiClient, id: string): Promise<CfDebugEvent[]> {
  return client.request('GET', `/api/calculatedField/${enc(id)}/debugEvents`, { query: { limit: 50 } });
}

/** React Query hooks of assets, relations and alarms (the Assets and Alarms pages, and the entity cards). */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { SaveAlarmRequest } from '../../../shared/schemas/alarms.ts';
import type { SaveAssetRequest } from '../../../shared/schemas/assets.ts';
import type { SaveRelationRequest, SearchDirection } from '../../../shared/schemas/relations.ts';
import { useApi } from './api-context.tsx';
import {
  ackAlarm,
  addAlarmComment,
  alarmComments,
  alarmInfo,
  deleteAlarmComment,
  activeAlarmCount,
  alarms,
  alarmTypes,
  asset,
  assetProfileInfos,
  assets,
  clearAlarm,
  deleteAlarm,
  deleteAsset,
  deleteRelation,
  relations,
  saveAlarm,
  saveAsset,
  saveRelation,
  type AlarmInfo,
  type AlarmPageQuery,
  type AssetPageQuery,
  type EntityRef,
} from './entities-api.ts';
import { useDeviceOwnerScope } from './hooks.ts';
import { entityKeys } from './query-keys.ts';

export { entityKeys };

export function useAssets(query: AssetPageQuery) {
  const client = useApi();
  const scope = useDeviceOwnerScope();
  return useQuery({
    queryKey: entityKeys.assets(query, scope.customerId),
    queryFn: () => assets(client, query, scope.customerId),
    enabled: scope.ready,
    placeholderData: keepPreviousData,
  });
}

export function useAsset(id: string) {
  const client = useApi();
  return useQuery({ queryKey: entityKeys.asset(id), queryFn: () => asset(client, id) });
}

export function useAssetProfiles() {
  const client = useApi();
  return useQuery({
    queryKey: entityKeys.assetProfiles,
    queryFn: () => assetProfileInfos(client),
    staleTime: 30_000,
  });
}

export function useSaveAsset() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: SaveAssetRequest) => saveAsset(client, body),
    onSuccess: (saved) => {
      qc.setQueryData(entityKeys.asset(saved.id.id), saved);
      void qc.invalidateQueries({ queryKey: entityKeys.assetsAll });
      void qc.invalidateQueries({ queryKey: entityKeys.assetProfiles });
    },
  });
}

export function useDeleteAsset() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => deleteAsset(client, id),
    onSuccess: (_void, id) => {
      qc.removeQueries({ queryKey: entityKeys.asset(id) });
      void qc.invalidateQueries({ queryKey: entityKeys.assetsAll });
      void qc.invalidateQueries({ queryKey: entityKeys.relationsAll });
    },
  });
}

/** Devices or assets whose name contains the search (for pickers), at most 20. */
export function useEntityOptions(entityType: 'DEVICE' | 'ASSET', search: string) {
  const client = useApi();
  const scope = useDeviceOwnerScope();
  return useQuery({
    queryKey: entityKeys.entityOptions(entityType, search),
    queryFn: async () => {
      const query = {
        page: 0,
        pageSize: 20,
        textSearch: search || undefined,
        sortProperty: 'name' as const,
        sortOrder: 'ASC' as const,
      };
      const page =
        entityType === 'DEVICE'
          ? await client.devices(query, scope.customerId)
          : await assets(client, query, scope.customerId);
      return page.data.map((e) => ({ value: e.id.id, label: e.name }));
    },
    enabled: scope.ready,
    placeholderData: keepPreviousData,
  });
}

export function useRelations(entity: EntityRef, direction: SearchDirection) {
  const client = useApi();
  return useQuery({
    queryKey: entityKeys.relations(entity, direction),
    queryFn: () => relations(client, entity, direction),
  });
}

export function useSaveRelation() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: SaveRelationRequest) => saveRelation(client, body),
    onSuccess: () => qc.invalidateQueries({ queryKey: entityKeys.relationsAll }),
  });
}

export function useDeleteRelation() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (r: { from: EntityRef; to: EntityRef; type: string; typeGroup: string }) =>
      deleteRelation(client, r),
    onSuccess: () => qc.invalidateQueries({ queryKey: entityKeys.relationsAll }),
  });
}

/** A page of alarms; kept current by the WebSocket's alarm messages (which refetch alarm queries). */
export function useAlarms(query: AlarmPageQuery) {
  const client = useApi();
  return useQuery({
    queryKey: entityKeys.alarms(query),
    queryFn: () => alarms(client, query),
    placeholderData: keepPreviousData,
  });
}

export function useActiveAlarmCount() {
  const client = useApi();
  return useQuery({ queryKey: entityKeys.alarmCount, queryFn: () => activeAlarmCount(client) });
}

export function useAlarmTypes() {
  const client = useApi();
  return useQuery({
    queryKey: entityKeys.alarmTypes,
    queryFn: async () => (await alarmTypes(client)).data.map((t) => t.type),
  });
}

function useAlarmMutation<T>(fn: (arg: T) => Promise<unknown>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => qc.invalidateQueries({ queryKey: entityKeys.alarmsAll }),
  });
}

export function useAckAlarm() {
  const client = useApi();
  return useAlarmMutation((id: string) => ackAlarm(client, id));
}

export function useClearAlarm() {
  const client = useApi();
  return useAlarmMutation((id: string) => clearAlarm(client, id));
}

export function useDeleteAlarm() {
  const client = useApi();
  return useAlarmMutation((id: string) => deleteAlarm(client, id));
}

/** One alarm, refetched with every alarm list (after an acknowledge or clear, a WebSocket alarm message). */
export function useAlarmInfo(alarmId: string | null, initial: AlarmInfo | undefined) {
  const client = useApi();
  return useQuery({
    queryKey: entityKeys.alarmInfo(alarmId ?? ''),
    queryFn: () => alarmInfo(client, alarmId!),
    enabled: alarmId !== null,
    placeholderData: initial,
  });
}

export function useAlarmComments(alarmId: string) {
  const client = useApi();
  return useQuery({
    queryKey: entityKeys.alarmComments(alarmId),
    queryFn: () => alarmComments(client, alarmId),
  });
}

export function useAddAlarmComment(alarmId: string) {
  const client = useApi();
  return useAlarmMutation((text: string) => addAlarmComment(client, alarmId, text));
}

export function useDeleteAlarmComment(alarmId: string) {
  const client = useApi();
  return useAlarmMutation((commentId: string) => deleteAlarmComment(client, alarmId, commentId));
}

export function useRaiseAlarm() {
  const client = useApi();
  return useAlarmMutation((body: SaveAlarmRequest) => saveAlarm(client, body));
}

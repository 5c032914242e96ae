/** React Query hooks of calculated fields (the "Calculated fields" tab of devices, assets and profiles). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from './api-context.tsx';
import {
  calculatedFieldDebugEvents,
  calculatedFields,
  deleteCalculatedField,
  saveCalculatedField,
  type CalculatedField,
  type EntityRef,
} from './calculated-fields-api.ts';

const keys = {
  all: ['calculatedFields'] as const,
  of: (e: EntityRef) => ['calculatedFields', e.entityType, e.id] as const,
  debug: (id: string) => ['calculatedFields', 'debug', id] as const,
};

export function useCalculatedFields(entity: EntityRef) {
  const client = useApi();
  return useQuery({ queryKey: keys.of(entity), queryFn: () => calculatedFields(client, entity) });
}

export function useSaveCalculatedField() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: CalculatedField) => saveCalculatedField(client, body),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.all }),
  });
}

export function useDeleteCalculatedField() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => deleteCalculatedField(client, id),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.all }),
  });
}

export function useCalculatedFieldDebug(id: string | null) {
  const client = useApi();
  return useQuery({
    queryKey: keys.debug(id ?? ''),
    queryFn: () => calculatedFieldDebugEvents(client, id!),
    enabled: id !== null,
    refetchInterval: 3000,
  });
}

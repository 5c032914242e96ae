/** React Query hooks of dashboards (the Dashboards list and a dashboard's page). */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Dashboard } from '../pages/dashboards/dashboard-model.ts';
import { useApi } from './api-context.tsx';
import {
  dashboard,
  dashboards,
  deleteDashboard,
  saveDashboard,
  setDashboardPublic,
  type DashboardPageQuery,
} from './dashboards-api.ts';
import { useDeviceOwnerScope } from './hooks.ts';

export const dashboardKeys = {
  all: ['dashboards'] as const,
  list: (q: DashboardPageQuery, customerId?: string) =>
    ['dashboards', 'list', q, customerId ?? null] as const,
  one: (id: string) => ['dashboards', 'one', id] as const,
};

export function useDashboards(query: DashboardPageQuery) {
  const client = useApi();
  const scope = useDeviceOwnerScope();
  return useQuery({
    queryKey: dashboardKeys.list(query, scope.customerId),
    queryFn: () => dashboards(client, query, scope.customerId),
    enabled: scope.ready,
    placeholderData: keepPreviousData,
  });
}

export function useDashboardById(id: string) {
  const client = useApi();
  return useQuery({
    queryKey: dashboardKeys.one(id),
    queryFn: () => dashboard(client, id),
    staleTime: Infinity,
  });
}

export function useSaveDashboard() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (d: Dashboard) => saveDashboard(client, d),
    onSuccess: (saved) => {
      if (saved.id) qc.setQueryData(dashboardKeys.one(saved.id.id), saved);
      void qc.invalidateQueries({ queryKey: ['dashboards', 'list'] });
    },
  });
}

export function useSetDashboardPublic() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, isPublic }: { id: string; isPublic: boolean }) =>
      setDashboardPublic(client, id, isPublic),
    onSuccess: (saved) => {
      if (saved.id) qc.setQueryData(dashboardKeys.one(saved.id.id), saved);
      void qc.invalidateQueries({ queryKey: ['dashboards', 'list'] });
    },
  });
}

export function useDeleteDashboard() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => deleteDashboard(client, id),
    onSuccess: () => qc.invalidateQueries({ queryKey: dashboardKeys.all }),
  });
}

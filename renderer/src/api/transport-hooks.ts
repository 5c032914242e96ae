/** React Query hooks of the transport settings, a device's rate-limit counter and the device profiles. */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from './api-context.tsx';
import {
  deviceProfile,
  deviceProfilePage,
  deviceTransportStats,
  saveDeviceProfile,
  saveTransportLimits,
  transportLimits,
  type SaveDeviceProfileRequest,
  type TransportLimits,
} from './transport-api.ts';

export const transportKeys = {
  limits: ['transportLimits'] as const,
  stats: (deviceId: string) => ['transportStats', deviceId] as const,
  profilesAll: ['deviceProfiles'] as const,
  profiles: (query: { page: number; pageSize: number; textSearch?: string }) =>
    ['deviceProfiles', 'page', query] as const,
  profile: (id: string) => ['deviceProfiles', 'one', id] as const,
};

export function useTransportLimits() {
  const client = useApi();
  return useQuery({ queryKey: transportKeys.limits, queryFn: () => transportLimits(client) });
}

export function useSaveTransportLimits() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (limits: TransportLimits) => saveTransportLimits(client, limits),
    onSuccess: (saved) => qc.setQueryData(transportKeys.limits, saved),
  });
}

/** A device's rate-limited messages, polled while its page is open (a live counter). */
export function useDeviceTransportStats(deviceId: string, refreshMs = 2_000) {
  const client = useApi();
  return useQuery({
    queryKey: transportKeys.stats(deviceId),
    queryFn: () => deviceTransportStats(client, deviceId),
    refetchInterval: refreshMs,
  });
}

export function useDeviceProfiles(query: { page: number; pageSize: number; textSearch?: string }) {
  const client = useApi();
  return useQuery({
    queryKey: transportKeys.profiles(query),
    queryFn: () => deviceProfilePage(client, query),
    placeholderData: keepPreviousData,
  });
}

export function useDeviceProfile(id: string) {
  const client = useApi();
  return useQuery({ queryKey: transportKeys.profile(id), queryFn: () => deviceProfile(client, id) });
}

export function useSaveDeviceProfile() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (profile: SaveDeviceProfileRequest) => saveDeviceProfile(client, profile),
    onSuccess: async (saved) => {
      qc.setQueryData(transportKeys.profile(saved.id.id), saved);
      await qc.invalidateQueries({ queryKey: transportKeys.profilesAll });
    },
  });
}

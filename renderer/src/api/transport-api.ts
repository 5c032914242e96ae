/**
 * The transports' settings and counters (/api/sandboard/transportLimits, a device's transportStats) and
 * the device profiles (/api/deviceProfile...), typed with the server's TypeBox shapes and sent through
 * the one API client's request helper.
 */
import type { PageData } from '../../../shared/schemas/common.ts';
import type { DeviceProfile, SaveDeviceProfileRequest } from '../../../shared/schemas/entities.ts';
import type { DeviceTransportStats, TransportLimits } from '../../../shared/schemas/transport-limits.ts';
import type { ApiClient } from './client.ts';

export type { DeviceProfile, DeviceTransportStats, SaveDeviceProfileRequest, TransportLimits };

export function transportLimits(client: ApiClient): Promise<TransportLimits> {
  return client.request('GET', '/api/sandboard/transportLimits');
}

export function saveTransportLimits(client: ApiClient, limits: TransportLimits): Promise<TransportLimits> {
  return client.request('POST', '/api/sandboard/transportLimits', { body: limits });
}

export function deviceTransportStats(client: ApiClient, deviceId: string): Promise<DeviceTransportStats> {
  return client.request('GET', `/api/sandboard/device/${encodeURIComponent(deviceId)}/transportStats`);
}

export function deviceProfilePage(
  client: ApiClient,
  query: { page: number; pageSize: number; textSearch?: string },
): Promise<PageData<DeviceProfile>> {
  return client.request('GET', '/api/deviceProfiles', {
    query: { ...query, sortProperty: 'name', sortOrder: 'ASC' },
  });
}

export function deviceProfile(client: ApiClient, id: string): Promise<DeviceProfile> {
  return client.request('GET', `/api/deviceProfile/${encodeURIComponent(id)}`);
}

export function saveDeviceProfile(
  client: ApiClient,
  profile: SaveDeviceProfileRequest,
): Promise<DeviceProfile> {
  return client.request('POST', '/api/deviceProfile', { body: profile });
}

import type { DeviceProfile, SaveDeviceProfileRequest } from '../../api/transport-api.ts';

/** A save request that changes `changes` and keeps the rest of the profile as it is. */
export function profileSaveRequest(
  profile: DeviceProfile,
  changes: Partial<SaveDeviceProfileRequest>,
): SaveDeviceProfileRequest {
  return {
    id: { entityType: 'DEVICE_PROFILE', id: profile.id.id },
    name: profile.name,
    description: profile.description,
    type: 'DEFAULT',
    transportType: profile.transportType,
    provisionType: profile.provisionType as SaveDeviceProfileRequest['provisionType'],
    provisionDeviceKey: profile.provisionDeviceKey,
    profileData: profile.profileData,
    ...changes,
  };
}

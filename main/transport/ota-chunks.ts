import type { OtaPackageType } from '../../shared/schemas/ota.ts';
import type { DeviceRow } from '../platform/devices.ts';
import type { OtaPackageRow } from '../platform/ota-packages.ts';
import type { TransportCore } from './device-messages.ts';

/** What a device's package request gets: the package and its bytes, or ThingsBoard's response status. */
export type OtaPackageAnswer =
  { status: 'SUCCESS'; pkg: OtaPackageRow; data: Buffer } | { status: 'NOT_FOUND' | 'FAILURE' };

/**
 * The package a device is to download (its own, else its profile's), as ThingsBoard's transport API
 * answers GetOtaPackageRequestMsg: NOT_FOUND without one, FAILURE for a URL package (the device
 * downloads that from its URL).
 */
export async function devicePackage(
  core: TransportCore,
  device: DeviceRow,
  type: OtaPackageType,
): Promise<OtaPackageAnswer> {
  // a session's device row is the one it connected with: the package may have been given since
  const current = core.services.devices.findRow(device.id);
  const pkg = current ? core.services.otaUpdates.effectivePackage(current, type) : null;
  if (!pkg) return { status: 'NOT_FOUND' };
  if (!pkg.has_data) return { status: 'FAILURE' };
  return { status: 'SUCCESS', pkg, data: await core.services.otaPackages.data(pkg) };
}

/**
 * Chunk number `chunk` of `chunkSize` bytes (ThingsBoard's OtaPackageDataCache.get): the whole package
 * for a size below 1, and an empty chunk past the end.
 */
export function chunkOf(data: Buffer, chunkSize: number, chunk: number): Buffer {
  if (chunkSize < 1) return data;
  const start = chunkSize * chunk;
  if (!Number.isSafeInteger(start) || start >= data.length) return Buffer.alloc(0);
  return data.subarray(start, Math.min(data.length, start + chunkSize));
}

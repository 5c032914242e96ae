import { createHash } from 'node:crypto';
import { okJson, type ApiPlatform, type EntityRef } from '../api/api-kit.ts';

export interface PackageJson {
  id: EntityRef;
  title: string;
  version: string;
  type: 'FIRMWARE' | 'SOFTWARE';
  hasData: boolean;
  checksum: string | null;
  checksumAlgorithm: string | null;
  dataSize: number | null;
  fileName: string | null;
  url: string | null;
}

export async function defaultProfileId(p: ApiPlatform, token: string): Promise<string> {
  const profile = await okJson<{ id: EntityRef }>(p.http('/api/deviceProfileInfo/default', { token }));
  return profile.id.id;
}

/** Bytes that differ from position to position (a wrong chunk offset shows). */
export function packageBytes(size: number, seed = 7): Buffer {
  const b = Buffer.alloc(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    b[i] = x >>> 16;
  }
  return b;
}

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export function uploadRequest(
  p: ApiPlatform,
  token: string,
  id: string,
  data: Buffer,
  query: Record<string, string>,
  fileName = 'fw.bin',
): Promise<Response> {
  const form = new FormData();
  form.set('file', new Blob([data], { type: 'application/octet-stream' }), fileName);
  return p.http(`/api/otaPackage/${id}?${new URLSearchParams(query).toString()}`, {
    method: 'POST',
    token,
    body: form,
  });
}

/** A package with its data, as the UI makes one: the info, then the file (checksum computed). */
export async function createPackage(
  p: ApiPlatform,
  token: string,
  options: {
    profileId: string;
    title: string;
    version: string;
    data: Buffer;
    type?: 'FIRMWARE' | 'SOFTWARE';
    algorithm?: string;
  },
): Promise<PackageJson> {
  const info = await okJson<PackageJson>(
    p.http('/api/otaPackage', {
      method: 'POST',
      token,
      json: {
        title: options.title,
        version: options.version,
        type: options.type ?? 'FIRMWARE',
        deviceProfileId: { entityType: 'DEVICE_PROFILE', id: options.profileId },
      },
    }),
  );
  return okJson<PackageJson>(
    uploadRequest(p, token, info.id.id, options.data, { checksumAlgorithm: options.algorithm ?? 'SHA256' }),
  );
}

/** Gives a device (its full JSON, as ThingsBoard's UI saves it) a firmware package. */
export async function assignFirmware(
  p: ApiPlatform,
  token: string,
  deviceId: string,
  packageId: string | null,
): Promise<Record<string, unknown>> {
  const device = await okJson<Record<string, unknown>>(p.http(`/api/device/${deviceId}`, { token }));
  return okJson(
    p.http('/api/device', {
      method: 'POST',
      token,
      json: { ...device, firmwareId: packageId ? { entityType: 'OTA_PACKAGE', id: packageId } : null },
    }),
  );
}

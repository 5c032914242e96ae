/**
 * OTA packages (ThingsBoard's /api/otaPackage...) and Sandboard's rollout view, typed with the server's
 * TypeBox shapes.
 */
import type { PageData } from '../../../shared/schemas/common.ts';
import type { OtaPackageInfo, OtaRollout, SaveOtaPackageInfoRequest } from '../../../shared/schemas/ota.ts';
import { ApiError, type ApiClient } from './client.ts';

export type { OtaPackageInfo, OtaRollout, SaveOtaPackageInfoRequest };

export function otaPackages(client: ApiClient): Promise<PageData<OtaPackageInfo>> {
  return client.request('GET', '/api/otaPackages', {
    query: { pageSize: 100, page: 0, sortProperty: 'createdTime', sortOrder: 'DESC' },
  });
}

export function saveOtaPackageInfo(
  client: ApiClient,
  body: SaveOtaPackageInfoRequest,
): Promise<OtaPackageInfo> {
  return client.request('POST', '/api/otaPackage', { body });
}

export function uploadOtaPackage(
  client: ApiClient,
  id: string,
  file: File,
  checksumAlgorithm: string,
  onProgress: (share: number) => void,
): Promise<OtaPackageInfo> {
  const form = new FormData();
  form.set('file', file, file.name);
  return uploadForm(
    client,
    `/api/otaPackage/${encodeURIComponent(id)}?checksumAlgorithm=${encodeURIComponent(checksumAlgorithm)}`,
    form,
    onProgress,
  );
}

/** POSTs multipart form data with upload progress (fetch reports none); a refusal rejects with its message. */
async function uploadForm<T>(
  client: ApiClient,
  path: string,
  form: FormData,
  onProgress: (share: number) => void,
): Promise<T> {
  const token = await client.freshToken();
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', client.base + path);
    xhr.setRequestHeader('x-authorization', `Bearer ${token}`);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onerror = () => reject(new ApiError(0, 0, 'Cannot reach Sandboard: is the platform running?'));
    xhr.onload = () => {
      let body: unknown;
      try {
        body = xhr.responseText ? (JSON.parse(xhr.responseText) as unknown) : undefined;
      } catch {
        body = xhr.responseText;
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve(body as T);
      const error = body as { message?: unknown; errorCode?: unknown } | undefined;
      reject(
        new ApiError(
          xhr.status,
          typeof error?.errorCode === 'number' ? error.errorCode : 0,
          typeof error?.message === 'string' ? error.message : `${xhr.status} upload failed`,
          body,
        ),
      );
    };
    xhr.send(form);
  });
}

export function deleteOtaPackage(client: ApiClient, id: string): Promise<void> {
  return client.request('DELETE', `/api/otaPackage/${encodeURIComponent(id)}`);
}

export function otaRollout(client: ApiClient, id: string): Promise<OtaRollout> {
  return client.request('GET', `/api/sandboard/otaPackage/${encodeURIComponent(id)}/rollout`);
}

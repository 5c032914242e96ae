import { describe, expect, it } from 'vitest';
import { otaChecksum } from '../../../main/platform/ota-checksum.ts';
import { CHECKSUM_ALGORITHMS } from '../../../shared/schemas/ota.ts';
import {
  createDevice,
  expectTbError,
  okEmpty,
  okJson,
  useSharedPlatform,
  type PageJson,
} from '../api/api-kit.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import {
  assignFirmware,
  createPackage,
  defaultProfileId,
  packageBytes,
  sha256,
  uploadRequest,
  type PackageJson,
} from './ota-kit.ts';

describe("ThingsBoard's OtaPackage controller", () => {
  const platform = useSharedPlatform();

  it('creates, uploads with a computed checksum, lists, downloads and deletes packages', async () => {
    const p = platform();
    const token = await p.login();
    const profileId = await defaultProfileId(p, token);
    const data = packageBytes(10_000);
    const pkg = await createPackage(p, token, { profileId, title: 'rest-fw', version: '1.0', data });
    expect(pkg).toMatchObject({
      type: 'FIRMWARE',
      hasData: true,
      checksumAlgorithm: 'SHA256',
      checksum: sha256(data),
      dataSize: 10_000,
      fileName: 'fw.bin',
      url: null,
    });
    const info = await okJson<PackageJson>(p.http(`/api/otaPackage/info/${pkg.id.id}`, { token }));
    expect(info.checksum).toBe(sha256(data));
    const full = await okJson<PackageJson & { data: string }>(
      p.http(`/api/otaPackage/${pkg.id.id}`, { token }),
    );
    expect(Buffer.from(full.data, 'base64').equals(data)).toBe(true);
    const download = await p.http(`/api/otaPackage/${pkg.id.id}/download`, { token });
    expect(download.status).toBe(200);
    expect(download.headers.get('x-filename')).toBe('fw.bin');
    expect(Buffer.from(await download.arrayBuffer()).equals(data)).toBe(true);

    const page = await okJson<PageJson<PackageJson>>(
      p.http('/api/otaPackages?pageSize=10&page=0&textSearch=rest-fw', { token }),
    );
    expect(page.data.map((x) => x.id.id)).toEqual([pkg.id.id]);
    const forProfile = await okJson<PageJson<PackageJson>>(
      p.http(`/api/otaPackages/${profileId}/FIRMWARE?pageSize=50&page=0`, { token }),
    );
    expect(forProfile.data.map((x) => x.id.id)).toContain(pkg.id.id);
    const software = await okJson<PageJson<PackageJson>>(
      p.http(`/api/otaPackages/${profileId}/SOFTWARE?pageSize=50&page=0`, { token }),
    );
    expect(software.data.map((x) => x.id.id)).not.toContain(pkg.id.id);

    // Refused while a device or the profile has it, as ThingsBoard does.
    const device = await createDevice(p, token, { name: 'ota-rest-device' });
    await assignFirmware(p, token, device.id.id, pkg.id.id);
    await expectTbError(
      await p.http(`/api/otaPackage/${pkg.id.id}`, { method: 'DELETE', token }),
      400,
      30,
      'The otaPackage referenced by the devices cannot be deleted!',
    );
    await assignFirmware(p, token, device.id.id, null);
    const profile = await okJson<Record<string, unknown>>(
      p.http(`/api/deviceProfile/${profileId}`, { token }),
    );
    await okJson(
      p.http('/api/deviceProfile', {
        method: 'POST',
        token,
        json: { ...profile, firmwareId: { entityType: 'OTA_PACKAGE', id: pkg.id.id } },
      }),
    );
    await expectTbError(
      await p.http(`/api/otaPackage/${pkg.id.id}`, { method: 'DELETE', token }),
      400,
      30,
      'The otaPackage referenced by the device profile cannot be deleted!',
    );
    await okJson(
      p.http('/api/deviceProfile', { method: 'POST', token, json: { ...profile, firmwareId: null } }),
    );
    await okEmpty(p.http(`/api/otaPackage/${pkg.id.id}`, { method: 'DELETE', token }));
    await expectTbError(await p.http(`/api/otaPackage/info/${pkg.id.id}`, { token }), 404, 32);
  });

  it('computes every checksum algorithm ThingsBoard offers, and refuses a wrong given checksum', async () => {
    const p = platform();
    const token = await p.login();
    const profileId = await defaultProfileId(p, token);
    const data = packageBytes(3_333, 3);
    for (const algorithm of CHECKSUM_ALGORITHMS) {
      const pkg = await createPackage(p, token, {
        profileId,
        title: 'algo',
        version: algorithm,
        data,
        algorithm,
      });
      expect(pkg.checksum).toBe(otaChecksum(algorithm, data));
      expect(pkg.checksumAlgorithm).toBe(algorithm);
    }
    const info = await okJson<PackageJson>(
      p.http('/api/otaPackage', {
        method: 'POST',
        token,
        json: { title: 'bad-sum', version: '1', type: 'FIRMWARE', deviceProfileId: { id: profileId } },
      }),
    );
    await expectTbError(
      await uploadRequest(p, token, info.id.id, data, {
        checksumAlgorithm: 'SHA256',
        checksum: 'ab'.repeat(32),
      }),
      400,
      30,
      'Wrong otaPackage file!',
    );
    await expectTbError(
      await uploadRequest(p, token, info.id.id, data, { checksumAlgorithm: 'SHA1' }),
      400,
      30,
      'Unsupported checksum algorithm',
    );
    // the right checksum, given, is accepted
    const ok = await okJson<PackageJson>(
      uploadRequest(p, token, info.id.id, data, { checksumAlgorithm: 'SHA256', checksum: sha256(data) }),
    );
    expect(ok.hasData).toBe(true);
    await expectTbError(
      await p.http('/api/otaPackage', {
        method: 'POST',
        token,
        json: { title: 'bad-sum', version: '1', type: 'FIRMWARE', deviceProfileId: { id: profileId } },
      }),
      400,
      30,
      'OtaPackage with such title and version already exists!',
    );
  });

  it('keeps URL packages, which take no file and need a URL', async () => {
    const p = platform();
    const token = await p.login();
    const profileId = await defaultProfileId(p, token);
    const pkg = await okJson<PackageJson>(
      p.http('/api/otaPackage', {
        method: 'POST',
        token,
        json: {
          title: 'url-fw',
          version: '2',
          type: 'FIRMWARE',
          usesUrl: true,
          url: 'https://example.com/fw-2.bin',
          deviceProfileId: { id: profileId },
        },
      }),
    );
    expect(pkg).toMatchObject({ url: 'https://example.com/fw-2.bin', hasData: false });
    await expectTbError(
      await uploadRequest(p, token, pkg.id.id, Buffer.from('x'), { checksumAlgorithm: 'SHA256' }),
      400,
      30,
    );
    await expectTbError(
      await p.http('/api/otaPackage', {
        method: 'POST',
        token,
        json: {
          title: 'url-fw',
          version: '3',
          type: 'FIRMWARE',
          usesUrl: true,
          deviceProfileId: { id: profileId },
        },
      }),
      400,
      30,
      'Ota package URL should be specified!',
    );
  });

  it('serves chunks over HTTP /api/v1/{token}/firmware as ThingsBoard does', async () => {
    const p = platform();
    const token = await p.login();
    const profileId = await defaultProfileId(p, token);
    const data = packageBytes(2_500, 11);
    const pkg = await createPackage(p, token, { profileId, title: 'http-fw', version: '1.1', data });
    const device = await createDevice(p, token, { name: 'ota-http-device' }, 'ota-http-token');
    const withoutFirmware = async () =>
      (await (await p.http(`/api/devices/count/FIRMWARE/${profileId}`, { token })).json()) as number;
    const before = await withoutFirmware();
    await assignFirmware(p, token, device.id.id, pkg.id.id);
    expect(await withoutFirmware()).toBe(before - 1);
    const get = (q: string) => p.http(`/api/v1/ota-http-token/firmware?${q}`);
    const chunks: Buffer[] = [];
    for (let chunk = 0; ; chunk++) {
      const res = await get(`title=http-fw&version=1.1&size=1000&chunk=${chunk}`);
      expect(res.status).toBe(200);
      const body = Buffer.from(await res.arrayBuffer());
      if (body.length === 0) break;
      chunks.push(body);
    }
    expect(chunks.map((c) => c.length)).toEqual([1000, 1000, 500]);
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
    const whole = await get('title=http-fw&version=1.1');
    expect(Buffer.from(await whole.arrayBuffer()).equals(data)).toBe(true);
    await expectTbError(await get('title=http-fw&version=9'), 400, 31);
    await expectTbError(await get('title=http-fw&version=1.1&chunk=x'), 400, 31);
    await expectTbError(await p.http('/api/v1/ota-http-token/software?title=a&version=b'), 404, 32);
  });
});

describe('OTA storage', () => {
  it('counts packages against the store budget and refuses (413) the one that does not fit', async () => {
    const p = await startTestPlatform({ storeBudgetBytes: 12 * 1024 * 1024 });
    const token = await p.login();
    const profileId = await defaultProfileId(p as never, token);
    const big = packageBytes(5 * 1024 * 1024);
    const first = await createPackage(p as never, token, {
      profileId,
      title: 'big',
      version: '1',
      data: big,
    });
    expect(first.dataSize).toBe(big.length);
    const info = await okJson<PackageJson>(
      p.http('/api/otaPackage', {
        method: 'POST',
        token,
        json: { title: 'big', version: '2', type: 'FIRMWARE', deviceProfileId: { id: profileId } },
      }),
    );
    const second = packageBytes(7 * 1024 * 1024, 5);
    const res = await uploadRequest(p as never, token, info.id.id, second, { checksumAlgorithm: 'SHA256' });
    const body = await expectTbError(res, 413, 2);
    expect(body.message).toMatch(/store budget/);
    const after = await okJson<PackageJson>(p.http(`/api/otaPackage/info/${info.id.id}`, { token }));
    expect(after.hasData).toBe(false);
  });
});

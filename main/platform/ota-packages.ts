import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { PageData, PageQuery } from '../../shared/schemas/common.ts';
import {
  CHECKSUM_ALGORITHMS,
  OTA_PACKAGE_TYPES,
  type ChecksumAlgorithm,
  type OtaPackage,
  type OtaPackageInfo,
  type OtaPackageType,
  type SaveOtaPackageInfoRequest,
} from '../../shared/schemas/ota.ts';
import type { Writer } from '../store/durable-db.ts';
import { requireTenantAdmin, type Principal } from './auth/principal.ts';
import { ref, type PlatformContext } from './context.ts';
import { syncDir, writeSynced } from './durable-file.ts';
import { ErrorCode, invalidArgument, isUniqueViolation, notFound, PlatformError } from './errors.ts';
import { otaChecksum } from './ota-checksum.ts';
import { parseJson, queryPage } from './paging.ts';
import type { StoreBudget } from './store-budget.ts';

export interface OtaPackageRow {
  id: string;
  created_time: number;
  device_profile_id: string | null;
  type: OtaPackageType;
  title: string;
  version: string;
  tag: string | null;
  url: string | null;
  file_name: string | null;
  content_type: string | null;
  checksum_algorithm: ChecksumAlgorithm | null;
  checksum: string | null;
  data_size: number | null;
  has_data: number;
  additional_info: string | null;
}

/** An uploaded package file as the REST layer hands it over. */
export interface OtaUpload {
  fileName: string;
  contentType: string;
  data: Buffer;
}

const SORT = {
  createdTime: 'e.created_time',
  title: 'e.title',
  version: 'e.version',
  type: 'e.type',
  tag: 'e.tag',
};
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** 413: a package that would take the store (database and packages) over its budget. */
export class OtaStorageFullError extends PlatformError {
  constructor(message: string) {
    super(413, ErrorCode.GENERAL, message);
  }
}

/**
 * ThingsBoard's OTA packages (OtaPackageService): infos in the store, data as files in the data
 * directory (fsynced before the answer), all of them counted against the store budget.
 */
export class OtaPackageService {
  private readonly ctx: PlatformContext;
  private readonly dir: string;
  private readonly storage: StoreBudget | undefined;

  constructor(ctx: PlatformContext, dir: string, storage?: StoreBudget) {
    this.ctx = ctx;
    this.dir = dir;
    this.storage = storage;
  }

  toInfo(row: OtaPackageRow): OtaPackageInfo {
    return {
      id: ref('OTA_PACKAGE', row.id),
      createdTime: row.created_time,
      tenantId: ref('TENANT', this.ctx.tenantId),
      deviceProfileId: row.device_profile_id ? ref('DEVICE_PROFILE', row.device_profile_id) : null,
      type: row.type,
      title: row.title,
      version: row.version,
      tag: row.tag,
      url: row.url,
      hasData: row.has_data === 1,
      fileName: row.file_name,
      contentType: row.content_type,
      checksumAlgorithm: row.checksum_algorithm,
      checksum: row.checksum,
      dataSize: row.data_size,
      additionalInfo: parseJson(row.additional_info),
    };
  }

  findRow(id: string): OtaPackageRow | undefined {
    return this.ctx.db.get<OtaPackageRow>('SELECT * FROM ota_packages WHERE id = ?', [id]);
  }

  private requireRow(id: string): OtaPackageRow {
    const row = this.findRow(id);
    if (!row) throw notFound(`OtaPackage with id [${id}] is not found`);
    return row;
  }

  info(id: string): OtaPackageInfo {
    return this.toInfo(this.requireRow(id));
  }

  async withData(id: string): Promise<OtaPackage> {
    const row = this.requireRow(id);
    const data = row.has_data ? await this.data(row) : null;
    return { ...this.toInfo(row), data: data ? data.toString('base64') : null };
  }

  /**
   * A package's bytes, read once: every device of a rollout asks for the same package at once, and
   * they all share one read (one package is kept).
   */
  data(row: OtaPackageRow): Promise<Buffer> {
    if (this.cache?.id !== row.id) {
      const reading = readFile(this.file(row.id));
      const entry = { id: row.id, data: reading };
      this.cache = entry;
      reading.catch(() => {
        if (this.cache === entry) this.cache = null;
      });
    }
    return this.cache.data;
  }
  private cache: { id: string; data: Promise<Buffer> } | null = null;

  page(q: PageQuery): PageData<OtaPackageInfo> {
    return queryPage(
      this.ctx.db,
      {
        from: 'FROM ota_packages e',
        where: [],
        params: [],
        searchColumn: 'e.title',
        sortColumns: SORT,
        defaultSort: 'createdTime',
      },
      q,
      (r) => this.toInfo(r as unknown as OtaPackageRow),
    );
  }

  /** The packages that can be assigned to a profile's devices: of the profile and type, with data or a URL. */
  pageForProfile(deviceProfileId: string, type: string, q: PageQuery): PageData<OtaPackageInfo> {
    const t = packageType(type);
    return queryPage(
      this.ctx.db,
      {
        from: 'FROM ota_packages e',
        where: ['e.device_profile_id = ?', 'e.type = ?', '(e.has_data = 1 OR e.url IS NOT NULL)'],
        params: [deviceProfileId, t],
        searchColumn: 'e.title',
        sortColumns: SORT,
        defaultSort: 'createdTime',
      },
      q,
      (r) => this.toInfo(r as unknown as OtaPackageRow),
    );
  }

  /** POST /api/otaPackage: a new package's info (data comes with the next call), a URL package, or an update. */
  async saveInfo(request: SaveOtaPackageInfoRequest, actor: Principal): Promise<OtaPackageInfo> {
    requireTenantAdmin(actor);
    const profileId = request.deviceProfileId?.id ?? null;
    if (!profileId) throw invalidArgument('OtaPackage should be assigned to device profile!');
    if (!this.ctx.db.get('SELECT 1 FROM device_profiles WHERE id = ?', [profileId]))
      throw invalidArgument(`Device profile with id [${profileId}] is not found`);
    const url = request.usesUrl || request.url ? (request.url ?? '').trim() : '';
    if (request.usesUrl && !url) throw invalidArgument('Ota package URL should be specified!');
    if (url && !/^https?:\/\/\S+$/i.test(url))
      throw invalidArgument('Ota package URL should be an http(s) URL!');
    const info = JSON.stringify(request.additionalInfo ?? {});
    const id = request.id?.id ?? randomUUID();
    try {
      await this.ctx.db.write((w) => {
        const before = request.id
          ? w.get<OtaPackageRow>('SELECT * FROM ota_packages WHERE id = ?', [id])
          : undefined;
        if (request.id && !before) throw notFound(`OtaPackage with id [${id}] is not found`);
        if (before) {
          const fixed: [string, unknown, unknown][] = [
            ['type', before.type, request.type],
            ['title', before.title, request.title],
            ['version', before.version, request.version],
            ['deviceProfile', before.device_profile_id, profileId],
          ];
          for (const [name, was, now] of fixed)
            if (was !== now) throw invalidArgument(`Updating otaPackage ${name} is prohibited!`);
          w.run('UPDATE ota_packages SET tag = ?, additional_info = ? WHERE id = ?', [
            request.tag ?? before.tag,
            info,
            id,
          ]);
          return;
        }
        w.run(
          `INSERT INTO ota_packages (id, created_time, device_profile_id, type, title, version, tag, url,
             checksum_algorithm, checksum, has_data, additional_info)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)`,
          [
            id,
            this.ctx.now(),
            profileId,
            request.type,
            request.title,
            request.version,
            request.tag ?? request.version,
            url || null,
            url ? (request.checksumAlgorithm ?? null) : null,
            url ? (request.checksum ?? null) : null,
            info,
          ],
        );
      });
    } catch (err) {
      if (isUniqueViolation(err))
        throw invalidArgument('OtaPackage with such title and version already exists!');
      throw err;
    }
    return this.info(id);
  }

  /**
   * POST /api/otaPackage/{id}: the package's file. The checksum is computed with the algorithm; one given
   * must match it. Refused (413) when the store and the packages would go over the store budget.
   */
  async saveData(
    id: string,
    upload: OtaUpload,
    checksumAlgorithm: string,
    checksum: string | undefined,
    actor: Principal,
  ): Promise<OtaPackageInfo> {
    requireTenantAdmin(actor);
    const row = this.requireRow(id);
    if (row.url) throw invalidArgument('Can not upload data to the OTA package with URL!');
    if (row.has_data) throw invalidArgument('Updating otaPackage data is prohibited!');
    if (!(CHECKSUM_ALGORITHMS as readonly string[]).includes(checksumAlgorithm))
      throw invalidArgument(
        `Unsupported checksum algorithm "${checksumAlgorithm}": ${CHECKSUM_ALGORITHMS.join(', ')}`,
      );
    if (upload.data.length === 0) throw invalidArgument('OtaPackage data should be specified!');
    const algorithm = checksumAlgorithm as ChecksumAlgorithm;
    const computed = otaChecksum(algorithm, upload.data);
    if (checksum && checksum.trim().toLowerCase() !== computed)
      throw invalidArgument('Wrong otaPackage file!');
    this.checkBudget(upload.data.length);
    const file = this.file(id);
    await writeDurably(this.dir, file, upload.data);
    await this.ctx.db.write((w) =>
      w.run(
        `UPDATE ota_packages SET file_name = ?, content_type = ?, checksum_algorithm = ?, checksum = ?, data_size = ?,
           has_data = 1 WHERE id = ?`,
        [upload.fileName, upload.contentType, algorithm, computed, upload.data.length, id],
      ),
    );
    return this.info(id);
  }

  /** Bytes the packages' files take. */
  storedBytes(): number {
    return Number(
      this.ctx.db.get<{ n: number }>(
        'SELECT COALESCE(SUM(data_size), 0) AS n FROM ota_packages WHERE has_data = 1',
      )?.n ?? 0,
    );
  }

  private checkBudget(adding: number): void {
    const budget = this.storage?.budgetBytes ?? 0;
    if (budget <= 0) return;
    const store = this.storage!.usage().usedBytes;
    const packages = this.storedBytes();
    if (store + packages + adding > budget)
      throw new OtaStorageFullError(
        `The OTA package (${mib(adding)}) does not fit the store budget: ${mib(store)} of data and ${mib(packages)} of ` +
          `packages already use ${mib(store + packages)} of ${mib(budget)} (SANDBOARD_STORE_BUDGET_MB)`,
      );
  }

  /** DELETE /api/otaPackage/{id}: refused while a device or a device profile has it, as ThingsBoard does. */
  async delete(id: string, actor: Principal): Promise<void> {
    requireTenantAdmin(actor);
    this.requireRow(id);
    if (this.ctx.db.get('SELECT 1 FROM devices WHERE firmware_id = ? OR software_id = ? LIMIT 1', [id, id]))
      throw invalidArgument('The otaPackage referenced by the devices cannot be deleted!');
    if (
      this.ctx.db.get('SELECT 1 FROM device_profiles WHERE firmware_id = ? OR software_id = ? LIMIT 1', [
        id,
        id,
      ])
    )
      throw invalidArgument('The otaPackage referenced by the device profile cannot be deleted!');
    await this.ctx.db.write((w) => w.run('DELETE FROM ota_packages WHERE id = ?', [id]));
    if (this.cache?.id === id) this.cache = null;
    await rm(this.file(id), { force: true });
  }

  private file(id: string): string {
    return join(this.dir, `${id}.bin`);
  }
}

export function packageType(type: string): OtaPackageType {
  if (!(OTA_PACKAGE_TYPES as readonly string[]).includes(type))
    throw invalidArgument(`OtaPackageType "${type}" is not supported: FIRMWARE or SOFTWARE`);
  return type as OtaPackageType;
}

/**
 * Checks a device's or a profile's firmwareId / softwareId inside its save, as ThingsBoard's validators
 * do: the package exists, is of the right type, belongs to the device profile and has data or a URL.
 */
export function checkOtaAssignment(
  w: Writer,
  profileId: string,
  ids: { firmwareId: string | null; softwareId: string | null },
): void {
  for (const [type, id] of [
    ['FIRMWARE', ids.firmwareId],
    ['SOFTWARE', ids.softwareId],
  ] as const) {
    if (!id) continue;
    const row = w.get<OtaPackageRow>('SELECT * FROM ota_packages WHERE id = ?', [id]);
    if (!row) throw invalidArgument(`Can't assign non-existent ${type.toLowerCase()}!`);
    if (row.type !== type) throw invalidArgument(`Can't assign ${type.toLowerCase()} with type: ${row.type}`);
    if (!row.has_data && !row.url)
      throw invalidArgument(`Can't assign ${type.toLowerCase()} with empty data!`);
    if (row.device_profile_id !== profileId)
      throw invalidArgument(`Can't assign ${type.toLowerCase()} with different deviceProfile!`);
  }
}

/** Writes a file so that it is on disk when this resolves: a temporary file, fsync, rename, directory fsync. */
async function writeDurably(dir: string, file: string, data: Buffer): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeSynced(tmp, data);
  await rename(tmp, file);
  await syncDir(dir);
  if ((await stat(file)).size !== data.length)
    throw new Error(`OTA package file ${file} was not fully written`);
}

/**
 * Writes the firmwareId / softwareId of a device or device profile save (absent: kept; null: removed),
 * checked with checkOtaAssignment.
 */
export function writeOtaColumns(
  w: Writer,
  table: 'devices' | 'device_profiles',
  id: string,
  profileId: string,
  input: { firmwareId?: { id: string } | null; softwareId?: { id: string } | null },
): void {
  const current = w.get<{ firmware_id: string | null; software_id: string | null }>(
    `SELECT firmware_id, software_id FROM ${table} WHERE id = ?`,
    [id],
  );
  const ids = {
    firmwareId:
      input.firmwareId === undefined ? (current?.firmware_id ?? null) : (input.firmwareId?.id ?? null),
    softwareId:
      input.softwareId === undefined ? (current?.software_id ?? null) : (input.softwareId?.id ?? null),
  };
  if (ids.firmwareId === (current?.firmware_id ?? null) && ids.softwareId === (current?.software_id ?? null))
    return;
  checkOtaAssignment(w, profileId, ids);
  w.run(`UPDATE ${table} SET firmware_id = ?, software_id = ? WHERE id = ?`, [
    ids.firmwareId,
    ids.softwareId,
    id,
  ]);
}

import type { OtaPackageType, OtaRollout } from '../../shared/schemas/ota.ts';
import { OTA_UPDATE_STATES } from '../../shared/schemas/ota.ts';
import type { PlatformContext } from './context.ts';
import type { DeviceRow } from './devices.ts';
import { notFound } from './errors.ts';
import type { OtaPackageRow, OtaPackageService } from './ota-packages.ts';
import type { TelemetryService } from './telemetry.ts';

const PREFIX: Record<OtaPackageType, 'fw' | 'sw'> = { FIRMWARE: 'fw', SOFTWARE: 'sw' };
const COLUMN: Record<OtaPackageType, 'firmware_id' | 'software_id'> = {
  FIRMWARE: 'firmware_id',
  SOFTWARE: 'software_id',
};
/** The shared attributes ThingsBoard gives a device for its target package (OtaPackageUtil.getAttributeKeys). */
export const otaAttributeKeys = (type: OtaPackageType) =>
  ['title', 'version', 'ts', 'tag', 'size', 'checksum', 'checksum_algorithm', 'url'].map(
    (k) => `${PREFIX[type]}_${k}`,
  );

type Target = { device: DeviceRow; type: OtaPackageType; pkg: OtaPackageRow | null };

/**
 * ThingsBoard's DefaultOtaPackageStateService: when a device's package (its own, else its profile's)
 * changes, the device gets telemetry target_fw_title / target_fw_version / target_fw_ts and fw_state
 * QUEUED, then fw_state INITIATED and the shared attributes fw_title, fw_version, fw_ts, fw_tag, fw_size,
 * fw_checksum, fw_checksum_algorithm (fw_url for a URL package); a removed package removes them. The
 * device reports the rest of the states (DOWNLOADING ... UPDATED or FAILED) as telemetry.
 */
export class OtaUpdateService {
  private readonly ctx: PlatformContext;
  private readonly packages: OtaPackageService;
  private readonly telemetry: TelemetryService;
  private chain: Promise<void> = Promise.resolve();

  constructor(ctx: PlatformContext, packages: OtaPackageService, telemetry: TelemetryService) {
    this.ctx = ctx;
    this.packages = packages;
    this.telemetry = telemetry;
    ctx.events.on('deviceSaved', ({ deviceId }) =>
      this.enqueue(() => this.reconcile(this.devicesWhere('d.id = ?', [deviceId]))),
    );
    ctx.events.on('profileChanged', ({ profileId }) =>
      this.enqueue(() => this.reconcile(this.devicesWhere('d.device_profile_id = ?', [profileId]))),
    );
  }

  /** Resolves once every assignment change announced so far has reached its devices. */
  settled(): Promise<void> {
    return this.chain;
  }

  private enqueue(work: () => Promise<void>): void {
    this.chain = this.chain.then(work).catch((err: unknown) => {
      process.stderr.write(`OTA update: ${(err as Error).message}\n`);
    });
  }

  private devicesWhere(where: string, params: string[]): DeviceRow[] {
    return this.ctx.db.all<DeviceRow>(`SELECT d.* FROM devices d WHERE ${where}`, params);
  }

  /** The package a device gets: its own, else its profile's. */
  effectivePackage(device: DeviceRow, type: OtaPackageType): OtaPackageRow | null {
    const own = device[COLUMN[type]];
    const id =
      own ??
      this.ctx.db.get<{ id: string | null }>(
        `SELECT ${COLUMN[type]} AS id FROM device_profiles WHERE id = ?`,
        [device.device_profile_id],
      )?.id;
    return id ? (this.packages.findRow(id) ?? null) : null;
  }

  /** Sends what changed: a device whose shared fw_title / fw_version already name its package is left alone. */
  private async reconcile(devices: DeviceRow[]): Promise<void> {
    const targets: Target[] = [];
    for (const device of devices) {
      for (const type of ['FIRMWARE', 'SOFTWARE'] as const) {
        const pkg = this.effectivePackage(device, type);
        const p = PREFIX[type];
        const current = new Map(
          this.telemetry
            .attributes(device.id, ['SHARED_SCOPE'], [`${p}_title`, `${p}_version`])
            .map((a) => [a.key, a.value]),
        );
        if (
          pkg
            ? current.get(`${p}_title`) === pkg.title && current.get(`${p}_version`) === pkg.version
            : current.size === 0
        )
          continue;
        targets.push({ device, type, pkg });
      }
    }
    if (targets.length > 0) await this.push(targets);
  }

  private async push(targets: Target[]): Promise<void> {
    const queuedTs = this.ctx.now();
    const sending = targets.filter((t) => t.pkg);
    const removing = targets.filter((t) => !t.pkg);
    if (sending.length > 0) {
      await this.ctx.admit?.();
      const queued = sending.map(({ device, type, pkg }) => {
        const p = PREFIX[type];
        return {
          device,
          entries: [
            {
              ts: queuedTs,
              values: {
                [`target_${p}_title`]: pkg!.title,
                [`target_${p}_version`]: pkg!.version,
                [`target_${p}_ts`]: queuedTs,
                [`${p}_state`]: 'QUEUED',
              },
            },
          ],
        };
      });
      await this.ctx.db.write((w) => {
        for (const q of queued) this.ctx.telemetry.save(w, q.device.num, q.entries);
      });
      for (const q of queued)
        this.ctx.events.emit('telemetry', { deviceId: q.device.id, entries: q.entries });

      const initiatedTs = Math.max(this.ctx.now(), queuedTs + 1);
      const initiated = sending.map(({ device, type, pkg }) => {
        const p = PREFIX[type];
        const attrs: Record<string, unknown> = {
          [`${p}_title`]: pkg!.title,
          [`${p}_version`]: pkg!.version,
          [`${p}_ts`]: queuedTs,
          [`${p}_tag`]: pkg!.tag ?? pkg!.version,
        };
        const drop: string[] = [];
        if (pkg!.url) {
          attrs[`${p}_url`] = pkg!.url;
          for (const [k, v] of [
            ['size', pkg!.data_size],
            ['checksum_algorithm', pkg!.checksum_algorithm],
            ['checksum', pkg!.checksum],
          ] as const)
            if (v === null || v === '') drop.push(`${p}_${k}`);
            else attrs[`${p}_${k}`] = v;
        } else {
          attrs[`${p}_size`] = pkg!.data_size;
          attrs[`${p}_checksum_algorithm`] = pkg!.checksum_algorithm;
          attrs[`${p}_checksum`] = pkg!.checksum;
          drop.push(`${p}_url`);
        }
        return {
          device,
          attrs,
          drop,
          entries: [{ ts: initiatedTs, values: { [`${p}_state`]: 'INITIATED' } }],
        };
      });
      await this.ctx.db.write((w) => {
        for (const i of initiated) {
          this.ctx.telemetry.save(w, i.device.num, i.entries);
          this.telemetry.writeAttributes(w, i.device.id, 'SHARED_SCOPE', i.attrs, initiatedTs);
          for (const key of i.drop)
            w.run("DELETE FROM attributes WHERE entity_id = ? AND scope = 'SHARED_SCOPE' AND key = ?", [
              i.device.id,
              key,
            ]);
        }
      });
      for (const i of initiated) {
        this.ctx.events.emit('telemetry', { deviceId: i.device.id, entries: i.entries });
        this.ctx.events.emit('attributes', {
          deviceId: i.device.id,
          scope: 'SHARED_SCOPE',
          values: i.attrs,
          ts: initiatedTs,
        });
      }
    }
    for (const { device, type } of removing)
      await this.telemetry.deleteAttributes(device.id, 'SHARED_SCOPE', otaAttributeKeys(type));
  }

  /** A package's rollout: the devices that get it, by the state they last reported, and failures by fw_error. */
  rollout(otaPackageId: string): OtaRollout {
    const pkg = this.packages.findRow(otaPackageId);
    if (!pkg) throw notFound(`OtaPackage with id [${otaPackageId}] is not found`);
    const column = COLUMN[pkg.type];
    const p = PREFIX[pkg.type];
    const devices = this.ctx.db.all<{ num: number }>(
      `SELECT d.num FROM devices d JOIN device_profiles pr ON pr.id = d.device_profile_id
       WHERE COALESCE(d.${column}, pr.${column}) = ?`,
      [otaPackageId],
    );
    const states: Record<string, number> = Object.fromEntries(OTA_UPDATE_STATES.map((s) => [s, 0]));
    const failures: Record<string, number> = {};
    for (const { num } of devices) {
      const latest = this.ctx.telemetry.latest(num, [`${p}_state`, `${p}_error`]);
      const state = latest.get(`${p}_state`)?.value;
      const key = typeof state === 'string' && state in states ? state : 'QUEUED';
      states[key]!++;
      if (key === 'FAILED') {
        const reason = latest.get(`${p}_error`)?.value;
        const r = typeof reason === 'string' && reason !== '' ? reason.slice(0, 200) : 'unknown';
        failures[r] = (failures[r] ?? 0) + 1;
      }
    }
    return {
      otaPackageId,
      type: pkg.type,
      title: pkg.title,
      version: pkg.version,
      devices: devices.length,
      states,
      failures,
    };
  }
}

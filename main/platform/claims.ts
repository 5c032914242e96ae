import type { Principal } from './auth/principal.ts';
import type { PlatformContext } from './context.ts';
import type { DeviceRow, DeviceService } from './devices.ts';
import { forbidden, notFound } from './errors.ts';
import type { Device } from '../../shared/schemas/entities.ts';

export type ClaimOutcome = { response: 'SUCCESS'; device: Device } | { response: 'FAILURE' | 'CLAIMED' };

/**
 * Device claiming as ThingsBoard does it: a device announces {secretKey, durationMs}; a customer user
 * who knows the name and the key claims it within the duration and becomes its owner.
 */
export class ClaimService {
  private readonly ctx: PlatformContext;
  private readonly devices: DeviceService;
  private readonly defaultDurationMs: number;

  constructor(ctx: PlatformContext, devices: DeviceService, defaultDurationMs: number) {
    this.ctx = ctx;
    this.devices = devices;
    this.defaultDurationMs = defaultDurationMs;
  }

  /** From the device: stores the claim unless the device has an owner or a live claim. */
  async allowClaim(device: DeviceRow, secretKey: unknown, durationMs: unknown): Promise<void> {
    // The transport's row may be older than the device's owner (claimed or reclaimed since it connected).
    const current = this.devices.findRow(device.id);
    if (!current || current.customer_id) return;
    const now = this.ctx.now();
    const live = this.ctx.db.get<{ expires_at: number }>(
      'SELECT expires_at FROM device_claims WHERE device_id = ?',
      [device.id],
    );
    if (live && live.expires_at > now) return;
    const duration = typeof durationMs === 'number' && durationMs > 0 ? durationMs : this.defaultDurationMs;
    const key = typeof secretKey === 'string' ? secretKey : '';
    await this.ctx.db.write((w) =>
      w.run('INSERT OR REPLACE INTO device_claims (device_id, secret_key, expires_at) VALUES (?, ?, ?)', [
        device.id,
        key,
        now + duration,
      ]),
    );
  }

  async claim(deviceName: string, secretKey: string, actor: Principal): Promise<ClaimOutcome> {
    if (actor.authority !== 'CUSTOMER_USER' || !actor.customerId)
      throw forbidden('Only customer users claim devices');
    const device = this.devices.findRowByName(deviceName);
    if (!device) throw notFound(`Device with name [${deviceName}] is not found`);
    if (device.customer_id) return { response: 'CLAIMED' };
    const claim = this.ctx.db.get<{ secret_key: string; expires_at: number }>(
      'SELECT secret_key, expires_at FROM device_claims WHERE device_id = ?',
      [device.id],
    );
    if (!claim || claim.expires_at <= this.ctx.now() || claim.secret_key !== secretKey)
      return { response: 'FAILURE' };
    const customerId = actor.customerId;
    await this.ctx.db.write((w) => {
      w.run('UPDATE devices SET customer_id = ? WHERE id = ?', [customerId, device.id]);
      w.run('DELETE FROM device_claims WHERE device_id = ?', [device.id]);
    });
    return { response: 'SUCCESS', device: this.devices.toDevice(this.devices.findRow(device.id)!) };
  }

  /** Gives a claimed device back to the tenant. */
  async reclaim(deviceName: string, actor: Principal): Promise<Device> {
    const device = this.devices.findRowByName(deviceName);
    if (!device) throw notFound(`Device with name [${deviceName}] is not found`);
    if (actor.authority === 'CUSTOMER_USER' && device.customer_id !== actor.customerId) throw forbidden();
    await this.ctx.db.write((w) => w.run('UPDATE devices SET customer_id = NULL WHERE id = ?', [device.id]));
    return this.devices.toDevice(this.devices.findRow(device.id)!);
  }
}

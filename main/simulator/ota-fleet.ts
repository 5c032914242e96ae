import type { OtaUpdateState } from '../../shared/schemas/ota.ts';
import { failingDevices, OtaDevice, type OtaFailReason } from './ota-device.ts';

export interface OtaFleetOptions {
  /** mqtt://host:port of the platform */
  url: string;
  /** the devices' access tokens */
  tokens: string[];
  /** share of the devices that fail on purpose (0..1), exactly round(share * devices) */
  failShare?: number;
  failReason?: OtaFailReason;
  /** several ways to fail, taken in turn by the failing devices (overrides failReason) */
  failReasons?: OtaFailReason[];
  /** bytes per chunk request (default 16 KiB) */
  chunkSize?: number;
  /** which devices fail (default 'ota') */
  seed?: string;
  /** connections opened at once */
  connectConcurrency?: number;
}

/** Simulated devices that update themselves (OtaDevice each, on its own MQTT connection). */
export class OtaFleet {
  readonly devices: OtaDevice[];
  /** devices that fail on purpose */
  readonly failing: number;
  private readonly concurrency: number;

  constructor(options: OtaFleetOptions) {
    const failing = failingDevices(options.tokens.length, options.failShare ?? 0, options.seed);
    const reasons = options.failReasons?.length ? options.failReasons : [options.failReason ?? 'checksum'];
    // the failing devices in fleet order take the reasons in turn
    const reasonOf = new Map(
      [...failing].sort((a, b) => a - b).map((d, k) => [d, reasons[k % reasons.length]!]),
    );
    this.failing = failing.size;
    this.concurrency = Math.max(1, options.connectConcurrency ?? 100);
    this.devices = options.tokens.map(
      (token, i) =>
        new OtaDevice({
          url: options.url,
          token,
          chunkSize: options.chunkSize ?? 16 * 1024,
          fail: reasonOf.get(i),
        }),
    );
  }

  /** Connects every device (a bounded number at once); each subscribes and asks for its fw_* attributes. */
  async start(): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < this.devices.length) await this.devices[next++]!.start();
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, this.devices.length) }, worker));
  }

  /** Resolves once every device has reported UPDATED or FAILED. */
  async whenFinished(): Promise<Record<string, number>> {
    const states = await Promise.all(this.devices.map((d) => d.whenFinished()));
    return count(states);
  }

  /** Devices per state they last reported (null: nothing yet). */
  states(): Record<string, number> {
    return count(this.devices.map((d) => d.state ?? 'IDLE'));
  }

  /** fw_error -> devices that last reported FAILED with it */
  failures(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const d of this.devices) if (d.state === 'FAILED') out[d.error!] = (out[d.error!] ?? 0) + 1;
    return out;
  }

  connected(): number {
    return this.devices.filter((d) => d.connected).length;
  }

  bytes(): number {
    return this.devices.reduce((n, d) => n + d.bytes, 0);
  }

  async stop(): Promise<void> {
    await Promise.all(this.devices.map((d) => d.stop()));
  }
}

function count(states: (OtaUpdateState | 'IDLE')[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of states) out[s] = (out[s] ?? 0) + 1;
  return out;
}

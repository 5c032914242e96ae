import { createHash, type Hash } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import { mqttLib } from '../mqtt-lib.ts';
import { CHECKSUM_ALGORITHMS, type OtaUpdateState } from '../../shared/schemas/ota.ts';
import type { OtaFailReason } from '../../shared/schemas/simulation.ts';
import { otaChecksum } from '../platform/ota-checksum.ts';

/** How a simulated device fails when it is chosen to: a corrupted download, a lost chunk, or the update itself. */
export type { OtaFailReason };

/** The fw_error a failure reports (what the OTA page groups failures by). */
export const OTA_FAIL_ERRORS: Record<OtaFailReason, string> = {
  checksum: 'Checksum verification failed',
  download: 'Failed to download firmware chunk',
  update: 'Firmware update failed',
};

export interface OtaDeviceOptions {
  url: string;
  token: string;
  /** bytes per chunk request (ThingsBoard's SDKs default to a few KiB) */
  chunkSize: number;
  /** fail on purpose this way (undefined: update normally) */
  fail?: OtaFailReason;
  /** the firmware it runs before any update */
  initial?: { title: string; version: string };
}

const FW_KEYS = 'fw_checksum,fw_checksum_algorithm,fw_size,fw_title,fw_version';
/** the largest package a simulated device keeps in memory */
const MAX_PACKAGE_BYTES = 64 * 1024 * 1024;

interface Target {
  title: string;
  version: string;
  size: number;
  checksum: string;
  algorithm: string;
}

/**
 * A device that updates itself as ThingsBoard's Python SDK does (tb_device_mqtt.py): it follows the fw_*
 * shared attributes; on a new title or version it reports DOWNLOADING, requests the chunks on
 * v2/fw/request/{id}/chunk/{n}, then DOWNLOADED, VERIFIED (or FAILED with fw_error), UPDATING and UPDATED
 * with current_fw_title / current_fw_version, each as telemetry (QoS 1: reported once PUBACKed).
 */
export class OtaDevice {
  private readonly options: OtaDeviceOptions;
  private client: MqttClient | null = null;
  private current: { title: string; version: string };
  private requestId = 0;
  private chunkWaiter: { topic: string; resolve: (b: Buffer) => void } | null = null;
  private busy: Promise<void> = Promise.resolve();
  private readonly attempted = new Set<string>();
  state: OtaUpdateState | null = null;
  /** the fw_error of its last FAILED */
  error: string | null = null;
  connected = false;
  /** bytes of packages received */
  bytes = 0;
  private readonly finished: ((state: OtaUpdateState) => void)[] = [];

  constructor(options: OtaDeviceOptions) {
    this.options = options;
    this.current = options.initial ?? { title: 'initial', version: '0.0' };
  }

  async start(): Promise<void> {
    const client = await mqttLib().connectAsync(this.options.url, {
      username: this.options.token,
      clientId: '',
      clean: true,
      protocolVersion: 4,
      reconnectPeriod: 0,
      connectTimeout: 30_000,
    });
    this.client = client;
    this.connected = true;
    client.on('close', () => (this.connected = false));
    client.on('connect', () => (this.connected = true));
    client.on('error', () => undefined);
    client.on('message', (topic, payload) => this.onMessage(topic, payload));
    await client.subscribeAsync([
      'v1/devices/me/attributes',
      'v1/devices/me/attributes/response/+',
      'v2/fw/response/+',
    ]);
    await client.publishAsync('v1/devices/me/attributes/request/1', JSON.stringify({ sharedKeys: FW_KEYS }), {
      qos: 1,
    });
  }

  /** Resolves with UPDATED or FAILED once the device has reported one of them (PUBACKed). */
  whenFinished(): Promise<OtaUpdateState> {
    if (this.state === 'UPDATED' || this.state === 'FAILED') return Promise.resolve(this.state);
    return new Promise((resolve) => this.finished.push(resolve));
  }

  async stop(): Promise<void> {
    await this.client?.endAsync(true).catch(() => undefined);
  }

  private onMessage(topic: string, payload: Buffer): void {
    if (this.chunkWaiter?.topic === topic) {
      const w = this.chunkWaiter;
      this.chunkWaiter = null;
      w.resolve(payload);
      return;
    }
    if (topic !== 'v1/devices/me/attributes' && !topic.startsWith('v1/devices/me/attributes/response/'))
      return;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(payload.toString('utf8')) as Record<string, unknown>;
    } catch {
      return;
    }
    const attrs = (topic === 'v1/devices/me/attributes' ? body : (body.shared ?? {})) as Record<
      string,
      unknown
    >;
    const target = targetOf(attrs);
    if (!target) return;
    if (target.title === this.current.title && target.version === this.current.version) return;
    // the same target from the attribute answer and the update: one attempt (the SDK would retry a failure)
    const key = `${target.title}\u0000${target.version}`;
    if (this.attempted.has(key)) return;
    this.attempted.add(key);
    this.busy = this.busy.then(() => this.update(target)).catch(() => undefined);
  }

  private async report(state: OtaUpdateState, extra: Record<string, unknown> = {}): Promise<void> {
    await this.client!.publishAsync(
      'v1/devices/me/telemetry',
      JSON.stringify({
        current_fw_title: this.current.title,
        current_fw_version: this.current.version,
        fw_state: state,
        ...extra,
      }),
      { qos: 1 },
    );
    this.state = state;
    if (state === 'FAILED') this.error = typeof extra.fw_error === 'string' ? extra.fw_error : 'unknown';
    if (state === 'UPDATED' || state === 'FAILED') for (const f of this.finished.splice(0)) f(state);
  }

  private chunk(requestId: number, n: number): Promise<Buffer> {
    const topic = `v2/fw/response/${requestId}/chunk/${n}`;
    const arrived = new Promise<Buffer>((resolve) => (this.chunkWaiter = { topic, resolve }));
    void this.client!.publishAsync(`v2/fw/request/${requestId}/chunk/${n}`, String(this.options.chunkSize), {
      qos: 1,
    }).catch(() => undefined);
    return arrived;
  }

  private async update(target: Target): Promise<void> {
    const fail = this.options.fail;
    await this.report('DOWNLOADING');
    const requestId = ++this.requestId;
    const check = new Verifier(target);
    for (let n = 0; check.received < target.size; n++) {
      if (fail === 'download' && n === 1) {
        await this.report('FAILED', { fw_error: OTA_FAIL_ERRORS.download });
        return;
      }
      const part = await this.chunk(requestId, n);
      if (part.length === 0) break;
      // a corrupted download: one bit of the first chunk flipped
      if (fail === 'checksum' && n === 0) part[0] = part[0]! ^ 0x01;
      check.add(part);
      this.bytes += part.length;
    }
    await this.report('DOWNLOADED');
    if (!check.verified()) {
      await this.report('FAILED', { fw_error: OTA_FAIL_ERRORS.checksum });
      return;
    }
    await this.report('VERIFIED');
    await this.report('UPDATING');
    if (fail === 'update') {
      await this.report('FAILED', { fw_error: OTA_FAIL_ERRORS.update });
      return;
    }
    this.current = { title: target.title, version: target.version };
    await this.report('UPDATED');
  }
}

function targetOf(attrs: Record<string, unknown>): Target | null {
  const { fw_title, fw_version, fw_size, fw_checksum, fw_checksum_algorithm } = attrs;
  if (typeof fw_title !== 'string' || typeof fw_version !== 'string') return null;
  if (typeof fw_size !== 'number' || fw_size <= 0 || fw_size > MAX_PACKAGE_BYTES) return null;
  if (typeof fw_checksum !== 'string' || typeof fw_checksum_algorithm !== 'string') return null;
  return {
    title: fw_title,
    version: fw_version,
    size: fw_size,
    checksum: fw_checksum,
    algorithm: fw_checksum_algorithm,
  };
}

const STREAMED: Record<string, string> = { MD5: 'md5', SHA256: 'sha256', SHA384: 'sha384', SHA512: 'sha512' };

/** The checksum of a download as it arrives: digests chunk by chunk (only the other hashes keep the bytes). */
class Verifier {
  private readonly target: Target;
  private readonly hash: Hash | null;
  private readonly parts: Buffer[] = [];
  received = 0;

  constructor(target: Target) {
    this.target = target;
    const algorithm = STREAMED[target.algorithm];
    this.hash = algorithm ? createHash(algorithm) : null;
  }

  add(part: Buffer): void {
    this.received += part.length;
    if (this.hash) this.hash.update(part);
    else this.parts.push(Buffer.from(part));
  }

  verified(): boolean {
    if (this.received !== this.target.size) return false;
    const expected = this.target.checksum.toLowerCase();
    if (this.hash) return this.hash.digest('hex') === expected;
    if (!(CHECKSUM_ALGORITHMS as readonly string[]).includes(this.target.algorithm)) return false;
    const algorithm = this.target.algorithm as (typeof CHECKSUM_ALGORITHMS)[number];
    return otaChecksum(algorithm, Buffer.concat(this.parts)) === expected;
  }
}

/**
 * Which of `count` devices fail on purpose: exactly round(share * count) of them, spread over the fleet
 * by a seeded shuffle (the same seed picks the same devices).
 */
export function failingDevices(count: number, share: number, seed = 'ota'): Set<number> {
  const n = Math.round(Math.min(1, Math.max(0, share)) * count);
  const order = Array.from({ length: count }, (_, i) => ({
    i,
    k: createHash('sha256').update(`${seed}:${i}`).digest().readUInt32BE(0),
  }));
  order.sort((a, b) => a.k - b.k || a.i - b.i);
  return new Set(order.slice(0, n).map((o) => o.i));
}

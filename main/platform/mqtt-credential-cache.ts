import { createHash } from 'node:crypto';

/**
 * Which device an MQTT CONNECT's credentials (client id, user name, password) found, so a fleet
 * reconnecting is authenticated without its credential lookups. Keys are digests, never the secrets
 * themselves; only found devices are kept (a wrong token always asks the store). Bounded: the oldest
 * entry goes when it is full. Any change of credentials, a deleted device or a loaded sandbox empties
 * it, before the change is even durable, so a changed or deleted token is refused at once.
 */
export class MqttCredentialCache {
  private readonly entries = new Map<string, string>();
  private readonly maxEntries: number;
  /**
   * Whether any device has MQTT basic credentials (undefined: not known since the last change). Without
   * them an access token alone finds the device, whatever the client id.
   */
  anyBasic: boolean | undefined;

  constructor(maxEntries = 100_000) {
    this.maxEntries = maxEntries;
  }

  get size(): number {
    return this.entries.size;
  }

  static key(clientId: string, userName: string, password: string): string {
    return createHash('sha256').update(`${clientId}\0${userName}\0${password}`).digest('base64');
  }

  /** The device id these credentials found last time, if nothing changed since. */
  deviceId(key: string): string | undefined {
    return this.entries.get(key);
  }

  remember(key: string, deviceId: string): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, deviceId);
  }

  clear(): void {
    this.anyBasic = undefined;
    this.entries.clear();
  }
}

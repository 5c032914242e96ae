import { readFileSync } from 'node:fs';
import type { IClientOptions, MqttClient } from 'mqtt';
import { createRequire } from 'node:module';
import { mqttLib } from '../mqtt-lib.ts';

/**
 * mqtt.js and its transports (with them ws), which it would load at its first connect. Loaded by a run
 * before its first connection, a connection at the open-file limit fails for its socket (retried), not
 * for a module file. Not at import: the platform's start loads this module and connects nothing.
 */
export function loadMqttModules(): void {
  mqttLib();
  const require = createRequire(import.meta.url);
  for (const transport of ['tcp', 'tls', 'ws']) require(`mqtt/lib/connect/${transport}`);
}

/** Where and as whom a simulated gateway connects. */
export interface GatewayConnection {
  /** mqtt://host:port or mqtts://host:port */
  url: string;
  /** the gateway device's access token (the MQTT user name) */
  token: string;
  clientId: string;
  protocolVersion: 4 | 5;
  ca?: string;
  rejectUnauthorized?: boolean;
  connectTimeoutMs?: number;
}

/** A connection that failed; permanent: retrying will not help (bad token, not authorized, TLS). */
export class ConnectError extends Error {
  readonly permanent: boolean;
  /** the broker had accepted the connection (CONNACK) before it failed: the platform is there */
  readonly afterConnack: boolean;
  constructor(message: string, permanent: boolean, afterConnack = false) {
    super(message);
    this.permanent = permanent;
    this.afterConnack = afterConnack;
  }
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** A reason key for counters: '0x97' for an MQTT 5 reason code, else 'connection-lost'. */
export function failureReason(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'number' && code >= 0x80) return `0x${code.toString(16)}`;
  return 'connection-lost';
}

function readOpenFileLimit(): number | null {
  try {
    const line = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return line && /^\d+$/.test(line[1]!) ? Number(line[1]) : null;
  } catch {
    return null;
  }
}

// read now: once the limit is reached, not even /proc/self/limits can be opened
const OPEN_FILE_LIMIT = readOpenFileLimit();
let openFileLimitHit: string | null = null;

/** This process's open-file limit (soft, as `ulimit -n` shows it), or null where it cannot be read. */
export function openFileLimit(): number | null {
  return OPEN_FILE_LIMIT;
}

/** The message of the first connection this process could not open for the open-file limit, if any. */
export function openFileLimitReached(): string | null {
  return openFileLimitHit;
}

/** What to tell a user whose simulator ran out of file descriptors: the limit is the bound, not Sandboard. */
function openFileLimitMessage(): string {
  return (
    `the open-file limit of this process${OPEN_FILE_LIMIT === null ? '' : ` (ulimit -n: ${OPEN_FILE_LIMIT})`} is reached: ` +
    'every connection is an open file, so this limit, not Sandboard, bounds the fleet; ' +
    'raise it (ulimit -n 65535, or LimitNOFILE= for a service) or run several simulator processes'
  );
}

function describe(err: Error & { code?: unknown }, conn: GatewayConnection): ConnectError {
  const where = conn.url;
  switch (err.code) {
    case 'EMFILE':
    case 'ENFILE':
      openFileLimitHit ??= `cannot connect to ${where}: ${openFileLimitMessage()}`;
      return new ConnectError(openFileLimitHit, false);
    case 4:
    case 0x86:
      return new ConnectError(
        `${where} refused the access token (bad user name or password): check the gateway token`,
        true,
      );
    case 5:
    case 0x87:
      return new ConnectError(`${where} refused the connection: not authorized`, true);
    case 'ECONNREFUSED':
      return new ConnectError(
        `cannot connect to ${where}: connection refused (is the broker running?)`,
        false,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConnectError(`cannot connect to ${where}: host not found`, false);
  }
  const tls = typeof err.code === 'string' && /CERT|TLS|SSL|SELF_SIGNED/.test(err.code);
  const code = typeof err.code === 'number' ? ` (0x${err.code.toString(16)})` : '';
  return new ConnectError(`cannot connect to ${where}: ${err.message}${code}`, tls);
}

/**
 * Opens a real MQTT connection (mqtt.js, no automatic reconnect: the gateway reconnects itself so that
 * nothing is re-sent behind its counters). Rejects with a ConnectError a person can act on.
 */
export function openMqttClient(conn: GatewayConnection): Promise<MqttClient> {
  const timeoutMs = conn.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const options: IClientOptions = {
    username: conn.token,
    clientId: conn.clientId,
    protocolVersion: conn.protocolVersion,
    clean: true,
    reconnectPeriod: 0,
    connectTimeout: timeoutMs,
    keepalive: 30,
    queueQoSZero: false,
    resubscribe: false,
    ...(conn.ca !== undefined ? { ca: conn.ca } : {}),
    ...(conn.rejectUnauthorized !== undefined ? { rejectUnauthorized: conn.rejectUnauthorized } : {}),
  };
  return new Promise((resolve, reject) => {
    let client: MqttClient;
    try {
      client = mqttLib().connect(conn.url, options);
    } catch (err) {
      reject(describe(err as Error & { code?: unknown }, conn));
      return;
    }
    let error: ConnectError | undefined;
    const timer = setTimeout(() => {
      error ??= new ConnectError(`no answer from ${conn.url} within ${timeoutMs} ms`, false);
      client.end(true);
    }, timeoutMs + 1000);
    const done = () => {
      clearTimeout(timer);
      client.off('connect', onConnect);
      client.off('close', onClose);
    };
    const onConnect = () => {
      done();
      resolve(client);
    };
    const onClose = () => {
      done();
      client.end(true);
      reject(
        error ??
          new ConnectError(
            `${conn.url} closed the connection before accepting it (an MQTT broker there? TLS expected?)`,
            false,
          ),
      );
    };
    // mqtt.js emits 'error' for socket and CONNACK failures; a listener must always be there.
    client.on('error', (err) => {
      error ??= describe(err as Error & { code?: unknown }, conn);
    });
    client.once('connect', onConnect);
    client.on('close', onClose);
  });
}

/** Subscribes; fails permanently if the broker refuses a topic (the token is not a gateway's). */
export async function subscribeAll(client: MqttClient, topics: string[], url: string): Promise<void> {
  try {
    await client.subscribeAsync(topics, { qos: 1 });
  } catch (err) {
    const granted = (err as { packet?: { granted?: unknown[] } }).packet?.granted ?? [];
    if (
      granted.some((c) => typeof c === 'number' && c >= 0x80) ||
      /^Subscribe error/.test((err as Error).message)
    ) {
      throw new ConnectError(
        `${url} refused the subscription to ${topics.join(', ')}: is the device of this token a gateway (additionalInfo.gateway = true)?`,
        true,
      );
    }
    throw new ConnectError(
      `subscription to ${topics.join(', ')} failed: ${(err as Error).message}`,
      false,
      true,
    );
  }
}

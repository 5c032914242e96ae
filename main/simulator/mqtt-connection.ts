import { connect, type IClientOptions, type MqttClient } from 'mqtt';

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
  constructor(message: string, permanent: boolean) {
    super(message);
    this.permanent = permanent;
  }
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** A reason key for counters: '0x97' for an MQTT 5 reason code, else 'connection-lost'. */
export function failureReason(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'number' && code >= 0x80) return `0x${code.toString(16)}`;
  return 'connection-lost';
}

function describe(err: Error & { code?: unknown }, conn: GatewayConnection): ConnectError {
  const where = conn.url;
  switch (err.code) {
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
    const client = connect(conn.url, options);
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
    throw new ConnectError(`subscription to ${topics.join(', ')} failed: ${(err as Error).message}`, false);
  }
}

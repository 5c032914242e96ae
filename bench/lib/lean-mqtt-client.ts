/**
 * A lean MQTT 3.1.1 client for load generators: one TCP socket per device that sends CONNECT (clean
 * session, user name = access token, keep alive), waits for CONNACK, publishes at QoS 1 and resolves each
 * publish on its PUBACK, answers the server's QoS 1 PUBLISHes with PUBACK and sends PINGREQ within the keep
 * alive. The protocol work on the wire is the same as mqtt.js's; what it leaves out is mqtt.js's
 * per-client machinery (streams, stores, timers, reconnect logic), which costs a load process about twice
 * a connect's CPU on the server and competes with it for the same cores.
 */
import { connect as tcpConnect, type Socket } from 'node:net';

const CONNACK = 2;
const PUBLISH = 3;
const PUBACK = 4;
const PINGRESP = 13;

const PINGREQ_PACKET = Buffer.from([0xc0, 0x00]);
const DISCONNECT_PACKET = Buffer.from([0xe0, 0x00]);

/** A CONNECT's return code other than 0, as mqtt.js reports it. */
export class ConnectionRefusedError extends Error {
  readonly code: number;
  constructor(code: number) {
    super(`Connection refused: ${code}`);
    this.code = code;
  }
}

function remainingLength(n: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    bytes.push(byte);
  } while (n > 0);
  return bytes;
}

function packet(firstByte: number, body: Buffer[]): Buffer {
  const length = body.reduce((n, b) => n + b.length, 0);
  return Buffer.concat([Buffer.from([firstByte, ...remainingLength(length)]), ...body]);
}

function mqttString(s: string | Buffer): Buffer {
  const bytes = typeof s === 'string' ? Buffer.from(s, 'utf8') : s;
  const out = Buffer.allocUnsafe(2 + bytes.length);
  out.writeUInt16BE(bytes.length, 0);
  bytes.copy(out, 2);
  return out;
}

function connectPacket(clientId: string, username: string, keepaliveS: number): Buffer {
  const header = Buffer.from([
    0,
    4,
    0x4d,
    0x51,
    0x54,
    0x54,
    4,
    0x80 | 0x02,
    keepaliveS >> 8,
    keepaliveS & 0xff,
  ]);
  return packet(0x10, [header, mqttString(clientId), mqttString(username)]);
}

function publishPacket(topic: Buffer, id: number, payload: Buffer): Buffer {
  const idBytes = Buffer.from([id >> 8, id & 0xff]);
  return packet(0x32, [topic, idBytes, payload]);
}

const pubackPacket = (id: number) => Buffer.from([0x40, 0x02, id >> 8, id & 0xff]);

export interface LeanClientOptions {
  host: string;
  port: number;
  clientId: string;
  username: string;
  keepaliveS: number;
  connectTimeoutMs: number;
}

export class LeanMqttClient {
  private readonly socket: Socket;
  private pending: Buffer | undefined;
  private nextId = 1;
  private readonly acks = new Map<number, { resolve(): void; reject(err: Error): void }>();
  private connack: { resolve(): void; reject(err: Error): void } | undefined;
  private lastSentAt = performance.now();
  private closed = false;

  /** Connects and resolves once the CONNACK accepted the session. */
  static connect(options: LeanClientOptions): Promise<LeanMqttClient> {
    const client = new LeanMqttClient(options);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        client.end();
        reject(new Error('connack timeout'));
      }, options.connectTimeoutMs);
      client.connack = {
        resolve: () => {
          clearTimeout(timer);
          resolve(client);
        },
        reject: (err) => {
          clearTimeout(timer);
          client.end();
          reject(err);
        },
      };
    });
  }

  private constructor(options: LeanClientOptions) {
    this.socket = tcpConnect({ host: options.host, port: options.port });
    this.socket.setNoDelay(true);
    this.socket.once('connect', () =>
      this.send(connectPacket(options.clientId, options.username, options.keepaliveS)),
    );
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    this.socket.on('error', (err) => this.fail(err));
    this.socket.once('close', () =>
      this.fail(new Error(this.connack ? 'closed before CONNACK' : 'connection closed')),
    );
  }

  /** Publishes at QoS 1; resolves on the PUBACK. */
  publish(topic: string, payload: string): Promise<void> {
    if (this.closed) return Promise.reject(new Error('connection closed'));
    const id = this.nextId;
    this.nextId = (this.nextId % 65_535) + 1;
    return new Promise((resolve, reject) => {
      this.acks.set(id, { resolve, reject });
      this.send(publishPacket(mqttString(topic), id, Buffer.from(payload, 'utf8')));
    });
  }

  /** Sends PINGREQ when nothing was sent for `idleMs` (keep alive). */
  pingIfIdle(idleMs: number): void {
    if (!this.closed && performance.now() - this.lastSentAt >= idleMs) this.send(PINGREQ_PACKET);
  }

  /** DISCONNECT, then the socket ends. */
  end(): void {
    if (!this.closed) this.socket.end(DISCONNECT_PACKET);
    this.closed = true;
  }

  private send(bytes: Buffer): void {
    this.lastSentAt = performance.now();
    this.socket.write(bytes);
  }

  private fail(err: Error): void {
    this.closed = true;
    this.connack?.reject(err);
    this.connack = undefined;
    for (const ack of this.acks.values()) ack.reject(err);
    this.acks.clear();
  }

  /** Splits the stream into packets (fixed header, remaining length) and handles each. */
  private read(chunk: Buffer): void {
    let data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    while (data.length >= 2) {
      let length = 0;
      let multiplier = 1;
      let offset = 1;
      let complete = false;
      while (offset < data.length && offset <= 4) {
        const byte = data[offset++]!;
        length += (byte & 0x7f) * multiplier;
        multiplier *= 128;
        if ((byte & 0x80) === 0) {
          complete = true;
          break;
        }
      }
      if (!complete || data.length < offset + length) break;
      this.handle(data[0]!, data.subarray(offset, offset + length));
      data = data.subarray(offset + length);
    }
    if (data.length > 0) this.pending = data;
  }

  private handle(firstByte: number, body: Buffer): void {
    const type = firstByte >> 4;
    if (type === CONNACK) {
      const returnCode = body[1] ?? 255;
      const connack = this.connack;
      this.connack = undefined;
      if (returnCode === 0) connack?.resolve();
      else connack?.reject(new ConnectionRefusedError(returnCode));
    } else if (type === PUBACK) {
      const id = body.readUInt16BE(0);
      this.acks.get(id)?.resolve();
      this.acks.delete(id);
    } else if (type === PUBLISH && ((firstByte >> 1) & 3) === 1) {
      const topicLength = body.readUInt16BE(0);
      this.send(pubackPacket(body.readUInt16BE(2 + topicLength)));
    } else if (type !== PINGRESP && type !== PUBLISH) {
      this.fail(new Error(`unexpected MQTT packet type ${type}`));
      this.socket.destroy();
    }
  }
}

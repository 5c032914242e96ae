import type { MqttClient } from 'mqtt';
import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import type { TbMsg } from '../../platform/tb-msg.ts';
import { schemaValidator } from '../config-schema.ts';
import { processPattern } from '../msg-patterns.ts';
import { errorText, success, type NodeDefinition, type NodeOutput } from '../rule-node.ts';
import { SERVICE_ID } from './msg-count-node.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.mqtt]!;
const PROTOCOLS: Record<string, 3 | 4 | 5> = { MQTT_3_1: 3, MQTT_3_1_1: 4, MQTT_5: 5 };

function payloadOf(msg: TbMsg, plain: boolean): string {
  if (plain && typeof msg.data === 'string') return msg.data;
  return JSON.stringify(msg.data ?? null);
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    work,
    new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Publishes the message data to a topic (pattern) of an MQTT broker the user names (Sandboard's own
 * broker on loopback too) with QoS 1: Success once the broker acknowledged it. The connection is made at the
 * first message and kept; connecting and publishing each wait at most the connect timeout.
 */
export const mqttNode: NodeDefinition = {
  type: NODE_TYPES.mqtt,
  label: 'MQTT',
  componentType: 'EXTERNAL',
  description: 'Publish messages to the MQTT broker',
  relations: ['Success', 'Failure'],
  version: 2,
  upgrade: (from, config) => {
    const c = { ...config };
    if (from < 1 && !('parseToPlainText' in c)) c.parseToPlainText = false;
    if (from < 2 && !('protocolVersion' in c)) c.protocolVersion = 'MQTT_3_1';
    return c;
  },
  defaultConfiguration: {
    topicPattern: 'my-topic',
    port: 1883,
    connectTimeoutSec: 10,
    cleanSession: true,
    ssl: false,
    retainedMessage: false,
    parseToPlainText: false,
    protocolVersion: 'MQTT_3_1_1',
    credentials: { type: 'anonymous' },
  },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: (config, _env, node) => {
    const host = typeof config.host === 'string' ? config.host.trim() : '';
    if (!host) throw new Error('Host should be specified!');
    const port = Number(config.port ?? 1883);
    const timeoutMs = Math.max(Number(config.connectTimeoutSec ?? 10), 1) * 1000;
    const protocolVersion = PROTOCOLS[String(config.protocolVersion ?? 'MQTT_3_1_1')] ?? 4;
    const credentials = (config.credentials ?? { type: 'anonymous' }) as {
      type: string;
      username?: string;
      password?: string;
      caCert?: string;
      cert?: string;
      privateKey?: string;
    };
    if (!['anonymous', 'basic', 'cert.PEM'].includes(credentials.type))
      throw new Error(`Credentials of type '${credentials.type}' are not supported by Sandboard`);
    let clientId = typeof config.clientId === 'string' && config.clientId ? config.clientId : undefined;
    if (clientId && config.appendClientIdSuffix === true) clientId = `${clientId}_${SERVICE_ID}`;
    const maxIdLength = protocolVersion === 3 ? 23 : 256;
    if (clientId && clientId.length > maxIdLength)
      throw new Error(
        `The length of Client ID cannot be longer than ${maxIdLength}, but current length is ${clientId.length}.`,
      );
    const ownerId = `Tenant[sandboard]RuleNode[${node?.id ?? 'n/a'}]`;
    let client: MqttClient | null = null;
    let connecting: Promise<MqttClient> | null = null;

    const connect = (): Promise<MqttClient> => {
      if (client?.connected) return Promise.resolve(client);
      connecting ??= (async () => {
        client?.end(true);
        // Loaded at the first message: a platform without MQTT nodes does not carry the client library.
        const { default: mqtt } = await import('mqtt');
        const c = mqtt.connect({
          protocol: config.ssl === true ? 'mqtts' : 'mqtt',
          host,
          port,
          clientId: clientId ?? `${ownerId}-${Math.random().toString(16).slice(2, 10)}`.slice(0, maxIdLength),
          clean: config.cleanSession !== false,
          protocolVersion,
          connectTimeout: timeoutMs,
          reconnectPeriod: 0,
          username: credentials.type === 'basic' ? credentials.username : undefined,
          password: credentials.type === 'basic' ? credentials.password : undefined,
          ca: credentials.type === 'cert.PEM' && credentials.caCert ? credentials.caCert : undefined,
          cert: credentials.type === 'cert.PEM' && credentials.cert ? credentials.cert : undefined,
          key: credentials.type === 'cert.PEM' && credentials.privateKey ? credentials.privateKey : undefined,
        });
        client = c;
        c.on('error', () => undefined);
        try {
          await withTimeout(
            new Promise<void>((resolve, reject) => {
              c.once('connect', () => resolve());
              c.once('error', (err) => reject(err));
              c.once('close', () => reject(new Error('connection closed')));
            }),
            timeoutMs,
            `Connecting to ${host}:${port}`,
          );
          return c;
        } catch (err) {
          c.end(true);
          client = null;
          throw new Error(`Failed to connect to MQTT broker at ${host}:${port}: ${errorText(err)}`, {
            cause: err,
          });
        }
      })().finally(() => {
        connecting = null;
      });
      return connecting;
    };

    return {
      async process(msg): Promise<NodeOutput[]> {
        const topic = processPattern(String(config.topicPattern ?? ''), msg);
        try {
          const c = await connect();
          await withTimeout(
            c.publishAsync(topic, payloadOf(msg, config.parseToPlainText === true), {
              qos: 1,
              retain: config.retainedMessage === true,
            }),
            timeoutMs,
            `Publishing to ${host}:${port}`,
          );
          return success(msg);
        } catch (err) {
          return [
            { relation: 'Failure', msg: { ...msg, metadata: { ...msg.metadata, error: errorText(err) } } },
          ];
        }
      },
      destroy() {
        client?.end(true);
        client = null;
      },
    };
  },
};

import { eventDescriptor } from './typed-events.ts';

/** One publish the broker saw, as the inspector's tap records it (payload as received, never reformatted). */
export interface TappedPublish {
  /** increasing from 1 for the process's life */
  seq: number;
  ts: number;
  /** in: client to broker; out: the platform to a client */
  direction: 'in' | 'out';
  sessionId: string;
  clientId: string;
  deviceId: string;
  deviceName: string;
  gateway: boolean;
  /** 4 (3.1.1), 5 */
  protocolVersion: number;
  topic: string;
  qos: number;
  retain: boolean;
  payload: Uint8Array;
  /** MQTT 5 publish properties as the packet carried them */
  properties: Record<string, unknown> | undefined;
  /** the transport's answer (the PUBACK reason code for QoS 1 on v5); -1 until it answered */
  reasonCode: number;
  /** why it was refused */
  reason: string | undefined;
  /** the rule engine messages the publish became (to follow in debug events and traces) */
  msgIds: string[] | undefined;
}

/** A session connected or ended. */
export interface TappedSession {
  kind: 'connected' | 'disconnected';
  ts: number;
  sessionId: string;
  clientId: string;
  deviceId: string;
  deviceName: string;
  gateway: boolean;
}

/**
 * What the MQTT inspector's tap publishes, for the inspector's own views and anyone else (a recorder):
 * `received` when an incoming publish arrives, `publish` once the platform answered it (or when it sent
 * one), `session` on connects and disconnects.
 */
export const MqttTap = {
  /** an incoming publish as it arrives, before the platform handles it (the same object `publish` settles) */
  received: eventDescriptor<TappedPublish>('mqtt.received'),
  publish: eventDescriptor<TappedPublish>('mqtt.publish'),
  session: eventDescriptor<TappedSession>('mqtt.session'),
};

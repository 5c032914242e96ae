import { eventDescriptor, TypedEvents } from '../../../shared/typed-events.ts';

/** One call of the device HTTP API (/api/v1/{token}/...), once answered. */
export interface TappedHttpCall {
  /** when the request came in (epoch ms) */
  ts: number;
  deviceId: string;
  deviceName: string;
  method: string;
  /** the path and query with the device's token as {token} */
  path: string;
  /** the request body as text (absent when empty) */
  body: string | undefined;
  contentType: string | undefined;
  status: number;
}

export const DeviceHttpTapEvents = {
  /** a device's POST as it arrives (before the platform handles it): `call` follows with the same key */
  received: eventDescriptor<{ key: object; deviceId: string; ts: number }>('http.received'),
  call: eventDescriptor<TappedHttpCall & { key: object }>('http.call'),
};

/** The device HTTP API's tap: costs one Map lookup per call while nobody listens (a recording does). */
export class DeviceHttpTap {
  readonly events = new TypedEvents();

  get active(): boolean {
    return this.events.has(DeviceHttpTapEvents.call);
  }
}

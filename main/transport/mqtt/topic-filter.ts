/** MQTT topic filter matching (+ one level, # the rest). */
export function topicMatches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return true;
    if (i >= t.length) return false;
    if (f[i] !== '+' && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}

const DEVICE_SUBSCRIPTIONS =
  /^v1\/devices\/me\/(attributes|attributes\/response\/(\+|#|\d+)|rpc\/request\/(\+|#)|rpc\/response\/(\+|#|\d+))$/;
const GATEWAY_SUBSCRIPTIONS = new Set([
  'v1/gateway/attributes',
  'v1/gateway/attributes/response',
  'v1/gateway/rpc',
]);

/** ThingsBoard's package download answers and errors (v2/fw/response/{requestId}/chunk/{chunk}, v2/fw/error). */
const OTA_SUBSCRIPTIONS = /^v2\/(fw|sw)\/(response\/(\+|#|\+\/chunk\/\+|\d+\/chunk\/(\+|\d+))|error)$/;

/** What a device (and, for itself, a gateway) may subscribe to; anything else gets a SUBACK failure. */
export function maySubscribe(filter: string, gateway: boolean): boolean {
  return (
    DEVICE_SUBSCRIPTIONS.test(filter) ||
    OTA_SUBSCRIPTIONS.test(filter) ||
    (gateway && GATEWAY_SUBSCRIPTIONS.has(filter))
  );
}

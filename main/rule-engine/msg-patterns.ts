import type { TbMsg } from '../platform/tb-msg.ts';

const DATA_PATTERN = /\$\[(.*?)]/g;

const escapeJson = (value: string) => JSON.stringify(value).slice(1, -1);

/**
 * ThingsBoard's TbNodeUtils.processPattern: `${key}` takes a metadata value, `$[a.b]` a value of the message
 * data (objects only, leaves only), `${*}` / `$[*]` the whole metadata / data as JSON. Unknown keys stay as
 * written.
 */
export function processPattern(pattern: string, msg: TbMsg, escapeJsonValues = false): string {
  if (!pattern.includes('$')) return pattern;
  let result = pattern.replaceAll('${*}', JSON.stringify(msg.metadata));
  for (const [key, value] of Object.entries(msg.metadata)) {
    const token = '${' + key + '}';
    if (result.includes(token))
      result = result.replaceAll(token, escapeJsonValues ? escapeJson(value) : value);
  }
  result = result.replaceAll('$[*]', JSON.stringify(msg.data));
  const data = msg.data;
  if (data !== null && typeof data === 'object' && !Array.isArray(data) && result.includes('$[')) {
    result = result.replace(DATA_PATTERN, (whole, path: string) => {
      let node: unknown = data;
      for (const key of path.split('.')) {
        if (key === '' || node === null || typeof node !== 'object' || Array.isArray(node)) return whole;
        node = (node as Record<string, unknown>)[key];
      }
      if (node === undefined || node === null || typeof node === 'object') return whole;
      const value = String(node);
      return escapeJsonValues ? escapeJson(value) : value;
    });
  }
  return result;
}

export function processPatterns(patterns: readonly string[] | undefined, msg: TbMsg): string[] {
  return (patterns ?? []).map((p) => processPattern(p, msg));
}

/** A metadata value as ThingsBoard writes values into metadata: strings as they are, the rest as JSON. */
export function asMetadataValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The message data as an object a node may add keys to; throws ThingsBoard's error when it is not one. */
export function dataObject(msg: TbMsg): Record<string, unknown> {
  const data = msg.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new Error('Message body is not an object!');
  return { ...(data as Record<string, unknown>) };
}

/** ThingsBoard's TbMsg.getMetaDataTs(): metadata ts when it is a number, else the message time. */
export function metadataTs(msg: TbMsg): number {
  const ts = Number(msg.metadata.ts);
  return msg.metadata.ts !== undefined && msg.metadata.ts !== '' && Number.isFinite(ts) ? ts : msg.ts;
}

// A sample custom uplink converter for Sandboard's REST connector (copied into <data dir>/converters on
// first use; edit it there). It decodes values from the bytes of a request, as the gateway's sample does.
//
// A converter is an ES module exporting a class named by the converter's "extension":
//   constructor(config)          gets the whole converter section of rest.json
//   convert(data, request)       data: the request's fields (JSON body, form fields, query, path variables);
//                                request: { method, path, headers, body (a Buffer), contentType }
//   returns { deviceName, deviceType, attributes, telemetry }: attributes an object (or a list of objects),
//   telemetry an object, a list of objects, or a list of { ts, values }. null / undefined values are not sent.
//
// The bytes come from an application/octet-stream body, or from a hex string (optionally 0x...) sent as
// the text body or as one of the fields "data", "hex", "payload" or "bytes".
//
// extensionConfig (an object, or a list of them; the legacy "extension-config" too), each with:
//   key          telemetry key
//   datatype     float (4 bytes: IEEE 754 single, 8: double), int / integer, string, bool (also "type")
//   fromByte     first byte (inclusive), toByte: last byte (exclusive)
//   byteorder    big or little (default big)
//   signed       signed integer (default true)
//   multiplier   the number is multiplied by it (default 1)

function bytesOf(data, request) {
  const type = (request?.contentType ?? '').toLowerCase();
  if (request && type.startsWith('application/octet-stream')) return request.body;
  let text;
  for (const field of ['data', 'hex', 'payload', 'bytes']) {
    if (typeof data?.[field] === 'string') {
      text = data[field];
      break;
    }
  }
  if (text === undefined && typeof data?.text === 'string') text = data.text;
  if (text === undefined && request && request.body.length > 0 && !type.includes('json'))
    text = request.body.toString('latin1');
  if (text === undefined)
    throw new Error('no bytes: send application/octet-stream or a hex string in "data"');
  const hex = text.trim().replace(/^0x/i, '').replace(/[\s:]/g, '');
  if (!/^([0-9a-fA-F]{2})*$/.test(hex)) throw new Error(`"${text.slice(0, 40)}" is not a hex string`);
  return Buffer.from(hex, 'hex');
}

function decode(bytes, cfg) {
  const from = cfg.fromByte ?? 0;
  const to = cfg.toByte ?? bytes.length;
  if (from < 0 || to > bytes.length || from >= to)
    throw new Error(`${cfg.key}: bytes ${from}..${to} are outside the ${bytes.length} bytes received`);
  const slice = bytes.subarray(from, to);
  const little = String(cfg.byteorder ?? 'big').toLowerCase() === 'little';
  const signed = cfg.signed !== false;
  const type = String(cfg.datatype ?? cfg.type ?? 'int').toLowerCase();
  let value;
  if (type === 'float' || type === 'double') {
    if (slice.length === 4) value = little ? slice.readFloatLE(0) : slice.readFloatBE(0);
    else if (slice.length === 8) value = little ? slice.readDoubleLE(0) : slice.readDoubleBE(0);
    else throw new Error(`${cfg.key}: a float takes 4 or 8 bytes, not ${slice.length}`);
    value = Number(value.toPrecision(slice.length === 4 ? 7 : 15));
  } else if (type === 'string' || type === 'str') {
    return slice.toString('utf8');
  } else if (type === 'bool' || type === 'boolean') {
    return slice.some((b) => b !== 0);
  } else {
    let n = 0n;
    const ordered = little ? [...slice].reverse() : [...slice];
    for (const b of ordered) n = (n << 8n) | BigInt(b);
    if (signed && ordered.length > 0 && ordered[0] & 0x80) n -= 1n << BigInt(8 * ordered.length);
    value = Number(n);
  }
  const multiplier = cfg.multiplier ?? 1;
  return multiplier === 1 ? value : value * multiplier;
}

export class CustomRestUplinkConverter {
  constructor(config) {
    this.config = config;
    const ext = config.extensionConfig ?? config['extension-config'] ?? [];
    this.keys = Array.isArray(ext) ? ext : [ext];
    const info = config.deviceInfo ?? {};
    this.deviceName = info.deviceNameExpression ?? config.deviceNameExpression ?? 'CustomRestDevice';
    this.deviceType = info.deviceProfileExpression ?? config.deviceTypeExpression ?? 'default';
  }

  convert(data, request) {
    const bytes = bytesOf(data, request);
    const telemetry = {};
    for (const cfg of this.keys) telemetry[cfg.key] = decode(bytes, cfg);
    return { deviceName: this.deviceName, deviceType: this.deviceType, attributes: {}, telemetry };
  }
}

/** The spelling of the spec's other table. */
export { CustomRestUplinkConverter as CustomRESTUplinkConverter };

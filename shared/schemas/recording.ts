/**
 * A recording (POST /api/sandboard/recordings, `sandboard replay FILE`): JSON Lines, one record per line,
 * that a person can read and edit. The first line is the header, the last the end record; between them,
 * in time order, the devices named, the traffic (the stimuli a replay sends) and the outcomes (what a
 * replay with --assert checks). Every record but the header carries `t`, milliseconds since the
 * recording started. Documented in docs/recordings.md.
 *
 * Devices are named, never identified by id or token, so a recording replays against any instance: a
 * Sandboard or a real ThingsBoard, where missing devices are created by name with the profile recorded.
 */
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { isRecord, type JsonPathIssue, schemaIssues, type SchemaNode } from './json-path-issues.ts';

export const RECORDING_FORMAT = 'sandboard-recording';
/** The format version this Sandboard writes and reads; a file of a newer one is refused. */
export const RECORDING_VERSION = 1;
/** One line's bound, in characters (a payload at the transport's largest plus its JSON escaping). */
export const RECORDING_MAX_LINE_CHARS = 2_000_000;

const Name = Type.String({ minLength: 1, maxLength: 255 });
const Time = Type.Number({ minimum: 0, description: 'milliseconds since the recording started' });
const Names = Type.Array(Name, { maxItems: 10_000 });

const Ignore = Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), {
  maxItems: 1000,
  description:
    'paths not compared: a key (humidity), a field (alarm.severity), or a value path (response.ts)',
});
const Tolerance = Type.Union(
  [Type.Number({ minimum: 0 }), Type.Record(Type.String(), Type.Number({ minimum: 0 }))],
  { description: 'numbers within this of the expected value match: one for all, or by key / path' },
);
export const AssertOptions = Type.Object(
  { ignore: Type.Optional(Ignore), tolerance: Type.Optional(Tolerance) },
  { additionalProperties: false },
);
export type AssertOptions = Static<typeof AssertOptions>;

export const RecordingFilter = Type.Object(
  {
    devices: Type.Optional(Names),
    deviceTypes: Type.Optional(Names),
    topics: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), {
        maxItems: 1000,
        description: 'MQTT topic filters (+ and # wildcards)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RecordingFilter = Static<typeof RecordingFilter>;

export const RecordingHeader = Type.Object(
  {
    kind: Type.Literal('header'),
    format: Type.Literal(RECORDING_FORMAT),
    version: Type.Integer({ minimum: 1, description: `the format's version: ${RECORDING_VERSION}` }),
    id: Type.Optional(Type.String({ maxLength: 64 })),
    name: Type.Optional(Name),
    startedAt: Type.Integer({ minimum: 0, description: 'epoch milliseconds' }),
    durationMs: Type.Optional(Type.Integer({ minimum: 0 })),
    filter: Type.Optional(RecordingFilter),
    source: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'who wrote it' })),
    assert: Type.Optional(AssertOptions),
  },
  { additionalProperties: false },
);
export type RecordingHeader = Static<typeof RecordingHeader>;

const Values = Type.Record(Type.String(), Type.Unknown());

/** A device the recording names, before its first traffic. */
const DeviceRecord = Type.Object(
  {
    kind: Type.Literal('device'),
    t: Time,
    name: Name,
    type: Type.String({ minLength: 1, maxLength: 255, description: "the device profile's name" }),
    gateway: Type.Optional(Type.Boolean()),
    via: Type.Optional(Type.String({ description: 'the gateway it is connected through' })),
    accessToken: Type.Optional(
      Type.String({ maxLength: 255, description: 'its credentials where the recorder was asked for them' }),
    ),
  },
  { additionalProperties: false },
);

const Expect = Type.Object(
  {
    reasonCode: Type.Optional(
      Type.Integer({ description: 'the MQTT answer (CONNACK / PUBACK reason code)' }),
    ),
    reason: Type.Optional(Type.String()),
    status: Type.Optional(Type.Integer({ description: 'the HTTP status' })),
  },
  { additionalProperties: false },
);

const MqttConnect = Type.Object(
  {
    kind: Type.Literal('mqtt.connect'),
    t: Time,
    device: Name,
    clientId: Type.Optional(Type.String({ maxLength: 65535 })),
    protocolVersion: Type.Optional(Type.Union([Type.Literal(3), Type.Literal(4), Type.Literal(5)])),
    expect: Type.Optional(Expect),
  },
  { additionalProperties: false },
);

const MqttDisconnect = Type.Object(
  { kind: Type.Literal('mqtt.disconnect'), t: Time, device: Name },
  { additionalProperties: false },
);

const MqttPublish = Type.Object(
  {
    kind: Type.Literal('mqtt.publish'),
    t: Time,
    device: Name,
    direction: Type.Union([Type.Literal('in'), Type.Literal('out')], {
      description: 'in: the device published it (a replay sends it); out: the platform sent it to the device',
    }),
    topic: Type.String({ minLength: 1, maxLength: 65535 }),
    qos: Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal(2)]),
    retain: Type.Optional(Type.Boolean()),
    payload: Type.Optional(Type.String({ description: 'the payload as UTF-8 text' })),
    payloadBase64: Type.Optional(Type.String({ description: 'the payload when it is not UTF-8 text' })),
    properties: Type.Optional(Values),
    expect: Type.Optional(Expect),
  },
  { additionalProperties: false },
);

const HttpRequest = Type.Object(
  {
    kind: Type.Literal('http.request'),
    t: Time,
    device: Name,
    method: Type.String({ minLength: 1, maxLength: 16 }),
    path: Type.String({
      minLength: 1,
      maxLength: 8192,
      description: "the device HTTP API path with the device's token as {token}: /api/v1/{token}/telemetry",
    }),
    body: Type.Optional(Type.String()),
    contentType: Type.Optional(Type.String({ maxLength: 255 })),
    expect: Type.Optional(Expect),
  },
  { additionalProperties: false },
);

const RpcRequest = Type.Object(
  {
    kind: Type.Literal('rpc.request'),
    t: Time,
    device: Name,
    id: Type.Union([Type.Integer(), Type.String()], { description: "the request's id as recorded" }),
    origin: Type.Union([Type.Literal('server'), Type.Literal('device')], {
      description:
        'server: sent to the device (a replay sends it through the REST API); device: the device asked, in the mqtt.publish just above (a replay sends that publish, not this)',
    }),
    method: Type.String({ maxLength: 255 }),
    params: Type.Optional(Type.Unknown()),
    oneway: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const RpcResponse = Type.Object(
  {
    kind: Type.Literal('rpc.response'),
    t: Time,
    device: Name,
    id: Type.Union([Type.Integer(), Type.String()]),
    response: Type.Unknown({ description: 'the answer (a replayed device gives this one)' }),
  },
  { additionalProperties: false },
);

const AttributesUpdate = Type.Object(
  {
    kind: Type.Literal('attributes.update'),
    t: Time,
    device: Name,
    scope: Type.Union([Type.Literal('SHARED_SCOPE'), Type.Literal('SERVER_SCOPE')]),
    values: Values,
    deleted: Type.Optional(Type.Array(Type.String(), { maxItems: 10_000 })),
  },
  { additionalProperties: false },
);

const ExpectLatest = Type.Object(
  {
    kind: Type.Literal('expect.latest'),
    t: Time,
    device: Name,
    values: Values,
    ignore: Type.Optional(Ignore),
    tolerance: Type.Optional(Tolerance),
  },
  { additionalProperties: false },
);

const ExpectAlarm = Type.Object(
  {
    kind: Type.Literal('expect.alarm'),
    t: Time,
    device: Name,
    event: Type.Union([Type.Literal('raised'), Type.Literal('cleared'), Type.Literal('updated')]),
    type: Name,
    severity: Type.Optional(Type.String({ maxLength: 32 })),
    status: Type.Optional(Type.String({ maxLength: 32 })),
    ignore: Type.Optional(Ignore),
  },
  { additionalProperties: false },
);

const ExpectRpc = Type.Object(
  {
    kind: Type.Literal('expect.rpc'),
    t: Time,
    device: Name,
    id: Type.Union([Type.Integer(), Type.String()]),
    method: Type.String({ maxLength: 255 }),
    status: Type.Optional(Type.String({ maxLength: 32, description: 'SUCCESSFUL, TIMEOUT, FAILED...' })),
    response: Type.Optional(Type.Unknown({ description: 'what the caller got' })),
    ignore: Type.Optional(Ignore),
    tolerance: Type.Optional(Tolerance),
  },
  { additionalProperties: false },
);

const ExpectEdgeEvents = Type.Object(
  {
    kind: Type.Literal('expect.edgeEvents'),
    t: Time,
    edge: Name,
    count: Type.Integer({ minimum: 0 }),
    types: Type.Optional(Type.Record(Type.String(), Type.Integer({ minimum: 0 }))),
  },
  { additionalProperties: false },
);

const EndRecord = Type.Object(
  {
    kind: Type.Literal('end'),
    t: Time,
    records: Type.Integer({ minimum: 0, description: 'records between the header and this line' }),
    truncated: Type.Boolean({ description: 'the size bound was reached and recording stopped there' }),
    reason: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const RecordingRecordSchemas = {
  device: DeviceRecord,
  'mqtt.connect': MqttConnect,
  'mqtt.disconnect': MqttDisconnect,
  'mqtt.publish': MqttPublish,
  'http.request': HttpRequest,
  'rpc.request': RpcRequest,
  'rpc.response': RpcResponse,
  'attributes.update': AttributesUpdate,
  'expect.latest': ExpectLatest,
  'expect.alarm': ExpectAlarm,
  'expect.rpc': ExpectRpc,
  'expect.edgeEvents': ExpectEdgeEvents,
  end: EndRecord,
} as const;

type Schemas = typeof RecordingRecordSchemas;
export type RecordingRecordKind = keyof Schemas;
export type RecordingRecord = { [K in RecordingRecordKind]: Static<Schemas[K]> }[RecordingRecordKind];
export type RecordOf<K extends RecordingRecordKind> = Static<Schemas[K]>;

const isKind = (kind: unknown): kind is RecordingRecordKind =>
  typeof kind === 'string' && Object.hasOwn(RecordingRecordSchemas, kind);

/** One problem of a recording: its line (1-based) and the JSON path in that line. */
export interface RecordingIssue extends JsonPathIssue {
  line: number;
}

export interface ParsedRecording {
  header: RecordingHeader;
  records: RecordingRecord[];
  end: RecordOf<'end'> | undefined;
}

const issue = (line: number, path: string, message: string): RecordingIssue => ({ line, path, message });

/** The header's problems; a newer version is named alone, as nothing else of it can be judged. */
export function recordingHeaderIssues(value: unknown, line = 1): RecordingIssue[] {
  if (isRecord(value) && typeof value.version === 'number' && value.version > RECORDING_VERSION)
    return [
      issue(
        line,
        'version',
        `is ${value.version}, written by a newer Sandboard (this one reads version ${RECORDING_VERSION})`,
      ),
    ];
  if (!isRecord(value) || value.kind !== 'header')
    return [issue(line, 'kind', 'the first line must be the header ({"kind":"header",...})')];
  return schemaIssues(RecordingHeader as unknown as SchemaNode, value, '').map((i) => ({ ...i, line }));
}

/** Compiled checks of each record kind, made when first needed: a long recording is read fast. */
const compiled = new Map<RecordingRecordKind, { Check(value: unknown): boolean } | null>();
function checks(kind: RecordingRecordKind, value: unknown): boolean {
  let check = compiled.get(kind);
  if (check === undefined) {
    try {
      check = Compile(RecordingRecordSchemas[kind]);
    } catch {
      check = null; // no code generation here (a strict CSP): the issues' own walk decides
    }
    compiled.set(kind, check);
  }
  return check ? check.Check(value) : false;
}

/** One record's problems (not the header). */
export function recordingRecordIssues(value: unknown, line: number): RecordingIssue[] {
  if (!isRecord(value)) return [issue(line, '', 'must be a JSON object')];
  if (!isKind(value.kind))
    return [issue(line, 'kind', `must be one of ${Object.keys(RecordingRecordSchemas).join(', ')}`)];
  const schema = RecordingRecordSchemas[value.kind] as unknown as SchemaNode;
  const issues = checks(value.kind, value)
    ? []
    : schemaIssues(schema, value, '').map((i) => ({ ...i, line }));
  if (value.kind === 'mqtt.publish' && value.payload !== undefined && value.payloadBase64 !== undefined)
    issues.push(issue(line, 'payloadBase64', 'cannot be given with payload'));
  return issues;
}

/**
 * Reads a whole recording, or names every problem (at most `maxIssues`) with its line and path. A file
 * without its end record is read (a recording cut by a crash), a record after the end is not.
 */
export function parseRecording(
  text: string,
  maxIssues = 50,
): { recording: ParsedRecording; issues: [] } | { recording: undefined; issues: RecordingIssue[] } {
  const issues: RecordingIssue[] = [];
  const lines = text.split('\n');
  let header: RecordingHeader | undefined;
  let end: RecordOf<'end'> | undefined;
  const records: RecordingRecord[] = [];
  let lastT = 0;
  for (let i = 0; i < lines.length && issues.length < maxIssues; i++) {
    const raw = lines[i]!.trim();
    const line = i + 1;
    if (!raw) continue;
    if (raw.length > RECORDING_MAX_LINE_CHARS) {
      issues.push(issue(line, '', `is ${raw.length} characters, the bound is ${RECORDING_MAX_LINE_CHARS}`));
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      issues.push(issue(line, '', `is not JSON (${(e as Error).message})`));
      continue;
    }
    if (!header) {
      const found = recordingHeaderIssues(value, line);
      if (found.length) return { recording: undefined, issues: found };
      header = value as RecordingHeader;
      continue;
    }
    if (end) {
      issues.push(issue(line, '', 'comes after the end record'));
      continue;
    }
    const found = recordingRecordIssues(value, line);
    if (found.length) {
      issues.push(...found);
      continue;
    }
    const record = value as RecordingRecord;
    if (record.t < lastT)
      issues.push(
        issue(line, 't', `is ${record.t}, before the line above it (${lastT}): records are in time order`),
      );
    lastT = record.t;
    if (record.kind === 'end') end = record;
    else records.push(record);
  }
  if (!header && !issues.length)
    issues.push(issue(1, '', 'the file is empty: a recording starts with its header'));
  if (issues.length || !header) return { recording: undefined, issues: issues.slice(0, maxIssues) };
  return { recording: { header, records, end }, issues: [] };
}

/** "line 3, payload: must be a string" */
export const describeRecordingIssue = (i: RecordingIssue): string =>
  `line ${i.line}${i.path ? `, ${i.path}` : ''}: ${i.message}`;

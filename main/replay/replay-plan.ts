/**
 * What a replay does, read from a recording before anything is sent: the devices it names, the records in
 * the order each connection sends them, the answers replayed devices give to RPC requests, the counts.
 */
import type { ParsedRecording, RecordingRecord, RecordOf } from '../../shared/schemas/recording.ts';

export interface PlannedDevice {
  name: string;
  /** the device profile's name, from the device record */
  type?: string;
  gateway: boolean;
  /** the gateway it is connected through */
  via?: string;
}

/** An RPC request the platform will send to a device, and the answer the recording says it gave. */
export interface RecordedAnswer {
  method: string;
  response: unknown;
  used: boolean;
}

export interface ReplayPlan {
  devices: Map<string, PlannedDevice>;
  /** per connection (a device, or the gateway a device is connected through): its records in time order */
  queues: Map<string, RecordingRecord[]>;
  answers: Map<string, RecordedAnswer[]>;
  messagesTotal: number;
  checksTotal: number;
  /** reasons the recording cannot be replayed */
  problems: string[];
}

/** A publish the replay does not send: the platform sent it, or a device's RPC answer (replayed by the responder). */
export function isAnswerTopic(topic: string, payload: string | undefined): boolean {
  if (topic.startsWith('v1/devices/me/rpc/response/')) return true;
  if (topic !== 'v1/gateway/rpc' || payload === undefined) return false;
  try {
    const body = JSON.parse(payload) as Record<string, unknown>;
    return 'id' in body && 'data' in body && !('method' in body);
  } catch {
    return false;
  }
}

/** Whether a record is a stimulus the replay sends (and counts as a message). */
export function isStimulus(r: RecordingRecord): boolean {
  switch (r.kind) {
    case 'mqtt.publish':
      return r.direction === 'in' && !isAnswerTopic(r.topic, r.payload);
    case 'http.request':
    case 'attributes.update':
      return true;
    case 'rpc.request':
      return r.origin === 'server';
    default:
      return false;
  }
}

const expectCount = (e: { reasonCode?: number; reason?: string; status?: number } | undefined) =>
  e && (e.reasonCode !== undefined || e.status !== undefined) ? 1 : 0;

/** The checks a record carries (with --assert). */
export function checksOf(r: RecordingRecord): number {
  switch (r.kind) {
    case 'mqtt.connect':
      return expectCount(r.expect);
    case 'mqtt.publish':
      return isStimulus(r) && r.qos > 0 ? expectCount(r.expect) : 0;
    case 'http.request':
      return expectCount(r.expect);
    case 'expect.latest':
    case 'expect.alarm':
    case 'expect.rpc':
    case 'expect.edgeEvents':
      return 1;
    default:
      return 0;
  }
}

export function planReplay({ records }: ParsedRecording, assert: boolean): ReplayPlan {
  const devices = new Map<string, PlannedDevice>();
  const problems: string[] = [];
  for (const r of records)
    if (r.kind === 'device')
      devices.set(r.name, {
        name: r.name,
        type: r.type,
        gateway: r.gateway ?? false,
        ...(r.via !== undefined ? { via: r.via } : {}),
      });
  for (const r of records)
    if ('device' in r && !devices.has(r.device)) devices.set(r.device, { name: r.device, gateway: false });
  for (const d of devices.values()) {
    if (d.via === undefined) continue;
    const gateway = devices.get(d.via);
    if (!gateway)
      problems.push(`device '${d.name}' is connected through '${d.via}', which the recording does not name`);
    else gateway.gateway = true;
  }

  const owner = (device: string) => devices.get(device)?.via ?? device;
  const queues = new Map<string, RecordingRecord[]>();
  const answers = new Map<string, RecordedAnswer[]>();
  const serverRequests = new Map<string, RecordOf<'rpc.request'>>();
  let messagesTotal = 0;
  let checksTotal = 0;
  for (const r of records) {
    if (r.kind === 'device' || r.kind === 'end') continue;
    if (r.kind === 'rpc.request' && r.origin === 'server')
      serverRequests.set(`${r.device}\u0000${String(r.id)}`, r);
    if (r.kind === 'rpc.response') {
      const request = serverRequests.get(`${r.device}\u0000${String(r.id)}`);
      if (request) {
        const list = answers.get(r.device) ?? [];
        list.push({ method: request.method, response: r.response, used: false });
        answers.set(r.device, list);
      }
      continue;
    }
    if (isStimulus(r)) messagesTotal++;
    if (assert) checksTotal += checksOf(r);
    const key = r.kind === 'expect.edgeEvents' ? `\u0000edge ${r.edge}` : owner(r.device);
    const queue = queues.get(key) ?? [];
    queue.push(r);
    queues.set(key, queue);
  }
  return { devices, queues, answers, messagesTotal, checksTotal, problems };
}

/** The recorded answer to an RPC request a replayed device receives: the first unused one of its method. */
export function takeAnswer(plan: ReplayPlan, device: string, method: string): RecordedAnswer | undefined {
  const answer = plan.answers.get(device)?.find((a) => !a.used && a.method === method);
  if (answer) answer.used = true;
  return answer;
}

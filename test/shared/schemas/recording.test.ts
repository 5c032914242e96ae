import { describe, expect, it } from 'vitest';
import {
  describeRecordingIssue,
  parseRecording,
  RECORDING_FORMAT,
  RECORDING_VERSION,
} from '../../../shared/schemas/recording.ts';

const header = { kind: 'header', format: RECORDING_FORMAT, version: RECORDING_VERSION, startedAt: 1 };
const lines = (...records: unknown[]) => records.map((r) => JSON.stringify(r)).join('\n');

describe('recording format', () => {
  it('reads a header, records in time order and the end record', () => {
    const { recording, issues } = parseRecording(
      lines(
        header,
        { kind: 'device', t: 0, name: 'T1', type: 'thermostat' },
        {
          kind: 'mqtt.publish',
          t: 5,
          device: 'T1',
          direction: 'in',
          topic: 'v1/devices/me/telemetry',
          qos: 1,
          payload: '{"t":1}',
          expect: { reasonCode: 0 },
        },
        { kind: 'expect.latest', t: 9, device: 'T1', values: { t: 1 }, tolerance: 0.1 },
        { kind: 'end', t: 10, records: 3, truncated: false },
      ),
    );
    expect(issues).toEqual([]);
    expect(recording?.records.map((r) => r.kind)).toEqual(['device', 'mqtt.publish', 'expect.latest']);
    expect(recording?.end?.truncated).toBe(false);
  });

  it('names the line and the path of each bad record', () => {
    const { issues } = parseRecording(
      lines(
        header,
        { kind: 'mqtt.publish', t: 1, device: 'T1', direction: 'in', topic: 'x', qos: 7 },
        { kind: 'nope', t: 2 },
      ) + '\n{oops',
    );
    const words = issues.map(describeRecordingIssue);
    expect(words[0]).toMatch(/^line 2, qos: /);
    expect(words[1]).toMatch(/^line 3, kind: must be one of device, /);
    expect(words[2]).toMatch(/^line 4: is not JSON/);
  });

  it('refuses a newer version by name, and a file that does not start with its header', () => {
    expect(
      parseRecording(lines({ ...header, version: RECORDING_VERSION + 1 })).issues.map(describeRecordingIssue),
    ).toEqual([
      `line 1, version: is ${RECORDING_VERSION + 1}, written by a newer Sandboard (this one reads version ${RECORDING_VERSION})`,
    ]);
    expect(parseRecording(lines({ kind: 'device', t: 0, name: 'a', type: 'b' })).issues[0]?.path).toBe(
      'kind',
    );
    expect(parseRecording('').issues[0]?.message).toMatch(/empty/);
  });

  it('refuses records out of time order and records after the end', () => {
    const { issues } = parseRecording(
      lines(
        header,
        { kind: 'mqtt.disconnect', t: 5, device: 'a' },
        { kind: 'mqtt.disconnect', t: 4, device: 'a' },
        { kind: 'end', t: 6, records: 2, truncated: false },
        { kind: 'mqtt.disconnect', t: 7, device: 'a' },
      ),
    );
    expect(issues.map((i) => [i.line, i.path])).toEqual([
      [3, 't'],
      [5, ''],
    ]);
  });
});

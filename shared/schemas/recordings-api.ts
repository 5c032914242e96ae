/** The recordings REST API (/api/sandboard/recordings): what it takes and answers. The file format is recording.ts. */
import { Type, type Static } from 'typebox';
import { RecordingFilter } from './recording.ts';

/** The longest recording one request may ask for: a day. */
export const RECORDING_MAX_DURATION_MS = 86_400_000;

const Name = Type.String({ minLength: 1, maxLength: 255 });

export const StartRecording = Type.Object(
  {
    durationMs: Type.Integer({
      minimum: 100,
      maximum: RECORDING_MAX_DURATION_MS,
      description: 'how long to record; POST .../stop ends it earlier',
    }),
    filter: Type.Optional(RecordingFilter),
    name: Type.Optional(Name),
  },
  { additionalProperties: false },
);
export type StartRecording = Static<typeof StartRecording>;

export const RenameRecording = Type.Object({ name: Name }, { additionalProperties: false });
export type RenameRecording = Static<typeof RenameRecording>;

export const RecordingState = Type.Union(
  [Type.Literal('recording'), Type.Literal('stopped'), Type.Literal('interrupted')],
  { description: 'interrupted: Sandboard stopped without ending it (its file has no end record)' },
);
export type RecordingState = Static<typeof RecordingState>;

export const RecordingInfo = Type.Object({
  id: Type.String(),
  name: Type.String(),
  state: RecordingState,
  startedAt: Type.Integer({ description: 'epoch milliseconds' }),
  durationMs: Type.Integer({ description: 'the duration asked for' }),
  recordedMs: Type.Integer({ description: 'how long it recorded (so far)' }),
  records: Type.Integer({ description: 'records between the header and the end' }),
  bytes: Type.Integer({ description: "the file's size (so far)" }),
  limitBytes: Type.Integer({ description: "the file's size bound" }),
  truncated: Type.Boolean({ description: 'the size bound was reached and recording stopped there' }),
  reason: Type.Optional(Type.String({ description: 'why it ended before its duration' })),
  filter: RecordingFilter,
});
export type RecordingInfo = Static<typeof RecordingInfo>;

export const RecordingList = Type.Object({
  recordings: Type.Array(RecordingInfo, { description: 'newest first' }),
  usedBytes: Type.Integer({ description: 'all recording files together' }),
  totalMaxBytes: Type.Integer({ description: 'their bound (SANDBOARD_RECORDINGS_MAX_MB)' }),
  recordingMaxBytes: Type.Integer({ description: "one recording's bound (SANDBOARD_RECORDING_MAX_MB)" }),
});
export type RecordingList = Static<typeof RecordingList>;

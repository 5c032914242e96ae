/** The recordings' endpoints (/api/sandboard/recordings), typed with the server's TypeBox shapes. */
import type { RecordingFilter } from '../../../shared/schemas/recording.ts';
import type { RecordingInfo, RecordingList, StartRecording } from '../../../shared/schemas/recordings-api.ts';
import type { ApiClient } from './client.ts';

export type { RecordingFilter, RecordingInfo, RecordingList, StartRecording };

const base = '/api/sandboard/recordings';
const one = (id: string) => `${base}/${encodeURIComponent(id)}`;

export const listRecordings = (client: ApiClient): Promise<RecordingList> => client.request('GET', base);

export const getRecording = (client: ApiClient, id: string): Promise<RecordingInfo> =>
  client.request('GET', one(id));

export const startRecording = (client: ApiClient, body: StartRecording): Promise<RecordingInfo> =>
  client.request('POST', base, { body });

export const stopRecording = (client: ApiClient, id: string): Promise<RecordingInfo> =>
  client.request('POST', `${one(id)}/stop`);

export const renameRecording = (client: ApiClient, id: string, name: string): Promise<RecordingInfo> =>
  client.request('PUT', one(id), { body: { name } });

export const deleteRecording = (client: ApiClient, id: string): Promise<void> =>
  client.request('DELETE', one(id));

/** The recording's file, JSON Lines. */
export const recordingFile = (client: ApiClient, id: string): Promise<string> =>
  client.request('GET', `${one(id)}/file`, { text: true, headers: { accept: 'application/x-ndjson' } });

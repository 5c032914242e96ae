import type { RecordingInfo } from '../../api/recordings-api.ts';

/**
 * The place for more actions on a recording's row, beside Download, Rename and Delete: Replay (issue 28
 * item 2) goes here. Nothing yet.
 */
export function RecordingRowActions(_props: { recording: RecordingInfo }) {
  return null;
}

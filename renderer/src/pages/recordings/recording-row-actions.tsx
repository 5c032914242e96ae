import { Button } from '@mantine/core';
import type { RecordingInfo } from '../../api/recordings-api.ts';
import { navigate } from '../../router.tsx';

/** More actions on a recording's row, beside Download, Rename and Delete: Replay, on the Replay page. */
export function RecordingRowActions({ recording }: { recording: RecordingInfo }) {
  return (
    <Button
      size="compact-xs"
      variant="default"
      disabled={recording.state === 'recording'}
      onClick={() => navigate(`/replay?recording=${encodeURIComponent(recording.id)}`)}
      data-testid="recording-replay"
    >
      Replay
    </Button>
  );
}

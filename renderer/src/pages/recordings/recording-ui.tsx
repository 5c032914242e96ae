import { Badge } from '@mantine/core';
import type { RecordingInfo } from '../../api/recordings-api.ts';
import { formatDuration, formatNumber } from '../../components/format.ts';

/** "812 KB", "3.4 MB" */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  const mb = bytes / 1024 / 1024;
  if (mb >= 1024) return `${(mb / 1024).toFixed(mb % 1024 === 0 ? 0 : 1)} GB`;
  return `${mb.toFixed(mb >= 10 ? 0 : 1)} MB`;
}

/** "1,204 records · 3.4 MB" */
export const countersOf = (r: RecordingInfo) =>
  `${formatNumber(r.records)} record${r.records === 1 ? '' : 's'} · ${formatBytes(r.bytes)}`;

/** How long it recorded, and of how long asked for while it records. */
export function durationOf(r: RecordingInfo): string {
  const done = formatDuration(Math.max(1000, r.recordedMs));
  return r.state === 'recording' ? `${done} of ${formatDuration(r.durationMs)}` : done;
}

const COLORS: Record<RecordingInfo['state'], string> = {
  recording: 'red',
  stopped: 'gray',
  interrupted: 'orange',
};

export function RecordingStateBadge({ recording }: { recording: RecordingInfo }) {
  return (
    <Badge
      variant="light"
      color={COLORS[recording.state]}
      data-testid="recording-state"
      data-state={recording.state}
    >
      {recording.state}
    </Badge>
  );
}

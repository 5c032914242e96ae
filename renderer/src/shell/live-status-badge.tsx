import { Badge, Tooltip } from '@mantine/core';
import { useLiveStatus } from '../live/live-provider.tsx';

const LOOK = {
  open: { color: 'teal', label: 'Live', tip: 'Updates arrive over the WebSocket as they happen' },
  connecting: { color: 'gray', label: 'Connecting', tip: 'Opening the live connection' },
  reconnecting: { color: 'yellow', label: 'Reconnecting', tip: 'The live connection dropped; retrying' },
  closed: { color: 'gray', label: 'Offline', tip: 'No live connection' },
} as const;

/** Whether live updates are flowing. */
export function LiveStatusBadge() {
  const status = useLiveStatus();
  const look = LOOK[status];
  return (
    <Tooltip label={look.tip} withArrow>
      <Badge color={look.color} variant="dot" size="lg" data-testid="live-status" data-status={status}>
        {look.label}
      </Badge>
    </Tooltip>
  );
}

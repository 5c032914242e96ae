import { Badge } from '@mantine/core';
import { useActiveAlarmCount } from '../api/entities-hooks.ts';

/** The navigation's count of active alarms (kept current by the WebSocket's alarm messages). */
export function AlarmCountBadge() {
  const count = useActiveAlarmCount();
  if (!count.data) return null;
  return (
    <Badge
      size="sm"
      color="red"
      variant="filled"
      circle={count.data < 10}
      aria-label={`${count.data} active alarm${count.data === 1 ? '' : 's'}`}
      data-testid="alarm-count"
    >
      {count.data > 99 ? '99+' : count.data}
    </Badge>
  );
}

import { Badge, Tooltip } from '@mantine/core';
import { useAttributes } from '../../api/hooks.ts';
import { formatDateTime } from '../../components/format.ts';

/**
 * Active or inactive as ThingsBoard shows it, from the device's server attributes (kept live by the
 * WebSocket while the page follows the device).
 */
export function ConnectivityBadge({ deviceId }: { deviceId: string }) {
  const attrs = useAttributes(deviceId, 'SERVER_SCOPE');
  const value = (key: string) => attrs.data?.find((a) => a.key === key)?.value;
  const active = value('active') === true;
  const last = value('lastActivityTime');
  if (!attrs.data) return null;
  return (
    <Tooltip label={typeof last === 'number' ? `Last activity ${formatDateTime(last)}` : 'No activity yet'}>
      <Badge
        variant="dot"
        color={active ? 'teal' : 'gray'}
        data-testid="device-connectivity"
        data-active={active}
      >
        {active ? 'Active' : 'Inactive'}
      </Badge>
    </Tooltip>
  );
}

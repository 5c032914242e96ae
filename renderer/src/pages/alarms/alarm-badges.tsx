import { Badge } from '@mantine/core';
import type { AlarmInfo, AlarmSeverity } from '../../api/entities-api.ts';

export const SEVERITY_COLORS: Record<AlarmSeverity, string> = {
  CRITICAL: 'red',
  MAJOR: 'orange',
  MINOR: 'yellow',
  WARNING: 'blue',
  INDETERMINATE: 'gray',
};

const STATUS_LABELS: Record<AlarmInfo['status'], string> = {
  ACTIVE_UNACK: 'Active, unacknowledged',
  ACTIVE_ACK: 'Active, acknowledged',
  CLEARED_UNACK: 'Cleared, unacknowledged',
  CLEARED_ACK: 'Cleared, acknowledged',
};

export function SeverityBadge({ severity }: { severity: AlarmSeverity }) {
  return (
    <Badge
      color={SEVERITY_COLORS[severity]}
      // only red reads at 4.5:1 as white on its filled shade: the others are light badges (dark text)
      variant={severity === 'CRITICAL' ? 'filled' : 'light'}
      size="sm"
      data-testid="alarm-severity"
    >
      {severity}
    </Badge>
  );
}

export function StatusBadge({ alarm }: { alarm: AlarmInfo }) {
  return (
    <Badge
      color={alarm.cleared ? 'gray' : 'red'}
      variant={alarm.acknowledged ? 'outline' : 'light'}
      size="sm"
      data-testid="alarm-status"
      data-status={alarm.status}
    >
      {STATUS_LABELS[alarm.status]}
    </Badge>
  );
}

/** Where an originator's page is, when it has one in the app. */
export function originatorPath(alarm: AlarmInfo): string | null {
  if (alarm.originator.entityType === 'DEVICE') return `/devices/${alarm.originator.id}`;
  if (alarm.originator.entityType === 'ASSET') return `/assets/${alarm.originator.id}`;
  return null;
}

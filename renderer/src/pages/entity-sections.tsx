import { Stack } from '@mantine/core';
import type { EntitySection } from '../components/entity-detail.tsx';
import { EntityAlarmsCard } from './alarms/entity-alarms-card.tsx';
import { DeviceAttributesCard } from './devices/device-attributes-card.tsx';
import { LatestTelemetryCard } from './devices/latest-telemetry-card.tsx';
import { TelemetryChartCard } from './devices/telemetry-chart-card.tsx';
import { RelationsCard } from './relations/relations-card.tsx';
import { CalculatedFieldsCard } from './calculated-fields/calculated-fields-card.tsx';

/**
 * The sections every entity with data has, in one order on every entity page: its telemetry (chart and
 * latest values), attributes, alarms and relations.
 */
export function entityDataSections(entity: { entityType: string; id: string }): EntitySection[] {
  const { entityType, id } = entity;
  return [
    {
      id: 'telemetry',
      label: 'Telemetry',
      content: (
        <Stack gap="md">
          <TelemetryChartCard deviceId={id} entityType={entityType} />
          <LatestTelemetryCard deviceId={id} entityType={entityType} />
        </Stack>
      ),
    },
    {
      id: 'attributes',
      label: 'Attributes',
      content: <DeviceAttributesCard deviceId={id} entityType={entityType} />,
    },
    { id: 'alarms', label: 'Alarms', content: <EntityAlarmsCard entity={entity} /> },
    { id: 'relations', label: 'Relations', content: <RelationsCard entity={entity} canEdit /> },
    ...(entityType === 'DEVICE' || entityType === 'ASSET'
      ? [
          {
            id: 'calculated-fields',
            label: 'Calculated fields',
            content: <CalculatedFieldsCard entity={entity} />,
          },
        ]
      : []),
  ];
}

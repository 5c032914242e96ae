import { Card, Group, SegmentedControl, Stack, Title } from '@mantine/core';
import { useState } from 'react';
import type { AlarmSearchStatus, EntityRef } from '../../api/entities-api.ts';
import { AlarmsTable } from './alarms-table.tsx';

/** The alarms shown on a device or an asset: raised by it, or propagated to it from below. */
export function EntityAlarmsCard({ entity }: { entity: EntityRef }) {
  const [status, setStatus] = useState<AlarmSearchStatus>('ACTIVE');
  const [paging, setPaging] = useState({ page: 0, pageSize: 10 });
  return (
    <Card withBorder radius="md" p="md" data-testid="entity-alarms">
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={4}>Alarms</Title>
          <SegmentedControl
            size="xs"
            aria-label="Which alarms"
            value={status}
            onChange={(v) => {
              setStatus(v as AlarmSearchStatus);
              setPaging((p) => ({ ...p, page: 0 }));
            }}
            data={[
              { value: 'ACTIVE', label: 'Active' },
              { value: 'ANY', label: 'All' },
            ]}
          />
        </Group>
        <AlarmsTable
          query={{ ...paging, statusList: [status], entity, sortProperty: 'createdTime', sortOrder: 'DESC' }}
          onPage={(page, pageSize) => setPaging({ page, pageSize })}
          emptyText={status === 'ACTIVE' ? 'No active alarms.' : 'No alarms.'}
        />
      </Stack>
    </Card>
  );
}

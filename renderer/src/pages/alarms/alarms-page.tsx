import {
  Button,
  Checkbox,
  Group,
  Modal,
  MultiSelect,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState, type FormEvent } from 'react';
import { ALARM_SEVERITIES } from '../../../../shared/schemas/alarms.ts';
import type { AlarmSearchStatus, AlarmSeverity } from '../../api/entities-api.ts';
import { useAlarms, useAlarmTypes, useRaiseAlarm } from '../../api/entities-hooks.ts';
import { usePlatformInfo } from '../../api/hooks.ts';
import { CopyValue } from '../../components/copy-value.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { AlarmsTable } from './alarms-table.tsx';
import { EntityPicker, type PickableType } from './entity-picker.tsx';

type Cleared = 'ACTIVE' | 'CLEARED' | 'ANY';
type Acked = 'ACK' | 'UNACK' | 'ANY';

function curlExample(http: string): string {
  return (
    `curl -X POST ${http}/api/alarm \\\n` +
    `  -H "Content-Type: application/json" \\\n` +
    `  -H "X-Authorization: ApiKey $SANDBOARD_API_KEY" \\\n` +
    `  -d '{"type":"High Temperature","severity":"CRITICAL","originator":{"entityType":"DEVICE","id":"<device id>"}}'`
  );
}

/** Raises an alarm on a device or an asset (as POST /api/alarm does; raising it again updates it). */
function RaiseAlarmModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const raise = useRaiseAlarm();
  const [entityType, setEntityType] = useState<PickableType>('DEVICE');
  const [originator, setOriginator] = useState<string | null>(null);
  const [type, setType] = useState('High Temperature');
  const [severity, setSeverity] = useState<AlarmSeverity>('CRITICAL');
  const [propagate, setPropagate] = useState(false);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!originator) return;
    raise.mutate(
      { type: type.trim(), severity, originator: { entityType, id: originator }, propagate },
      { onSuccess: onClose },
    );
  };
  return (
    <Modal opened={opened} onClose={onClose} title="Raise an alarm" size="lg">
      <form onSubmit={onSubmit} aria-label="Raise an alarm">
        <Stack gap="sm">
          <EntityPicker
            entityType={entityType}
            onEntityType={setEntityType}
            value={originator}
            onChange={setOriginator}
            label="Originator"
            testId="raise-originator"
          />
          <TextInput
            label="Type"
            required
            maxLength={255}
            value={type}
            onChange={(e) => setType(e.currentTarget.value)}
            data-testid="raise-type"
          />
          <Select
            label="Severity"
            data={[...ALARM_SEVERITIES]}
            value={severity}
            onChange={(v) => v && setSeverity(v as AlarmSeverity)}
            allowDeselect={false}
            data-testid="raise-severity"
          />
          <Checkbox
            label="Propagate to the entities above the originator (relations)"
            checked={propagate}
            onChange={(e) => setPropagate(e.currentTarget.checked)}
          />
          <Text size="xs" c="dimmed">
            An active alarm of the same type on the same originator is updated rather than created again.
          </Text>
          <ErrorAlert error={raise.error} title="Could not raise the alarm" />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={raise.isPending} disabled={!originator} data-testid="raise-submit">
              Raise
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

export default function AlarmsPage() {
  const info = usePlatformInfo();
  const types = useAlarmTypes();
  const [cleared, setCleared] = useState<Cleared>('ACTIVE');
  const [acked, setAcked] = useState<Acked>('ANY');
  const statusList = [cleared, acked].filter((s): s is AlarmSearchStatus => s !== 'ANY');
  const [severityList, setSeverityList] = useState<AlarmSeverity[]>([]);
  const [typeList, setTypeList] = useState<string[]>([]);
  const [search, setSearch] = useState('');
  const [textSearch] = useDebouncedValue(search.trim(), 300);
  const [paging, setPaging] = useState({ page: 0, pageSize: 20 });
  const [raising, setRaising] = useState(false);
  const query = {
    ...paging,
    statusList,
    severityList,
    typeList,
    textSearch: textSearch || undefined,
    sortProperty: 'createdTime' as const,
    sortOrder: 'DESC' as const,
  };
  const total = useAlarms(query).data?.totalElements;
  const filtered =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v);
      setPaging((p) => ({ ...p, page: 0 }));
    };

  return (
    <Stack gap="md">
      <PageHeader
        title="Alarms"
        description="Alarms of your devices and assets, as they are raised, acknowledged and cleared; updated live."
        actions={
          <Button onClick={() => setRaising(true)} data-testid="raise-alarm">
            Raise an alarm
          </Button>
        }
      />
      <Group align="flex-end" wrap="wrap" gap="sm">
        <Stack gap={4}>
          <Text size="sm" fw={500} id="alarm-status-label">
            Status
          </Text>
          <Group gap="xs" wrap="nowrap" role="group" aria-labelledby="alarm-status-label">
            <SegmentedControl
              aria-label="Active or cleared"
              value={cleared}
              onChange={(v) => filtered(setCleared)(v as Cleared)}
              data={[
                { value: 'ACTIVE', label: 'Active' },
                { value: 'CLEARED', label: 'Cleared' },
                { value: 'ANY', label: 'All' },
              ]}
              data-testid="alarm-cleared-filter"
            />
            <SegmentedControl
              aria-label="Acknowledged or not"
              value={acked}
              onChange={(v) => filtered(setAcked)(v as Acked)}
              data={[
                { value: 'ANY', label: 'Any' },
                { value: 'UNACK', label: 'Unacknowledged' },
                { value: 'ACK', label: 'Acknowledged' },
              ]}
              data-testid="alarm-ack-filter"
            />
          </Group>
        </Stack>
        <MultiSelect
          label="Severity"
          data={[...ALARM_SEVERITIES]}
          value={severityList}
          onChange={filtered((v: string[]) => setSeverityList(v as AlarmSeverity[]))}
          clearable
          placeholder="Any"
          w={260}
          data-testid="alarm-severity-filter"
        />
        <MultiSelect
          label="Type"
          data={types.data ?? []}
          value={typeList}
          onChange={filtered(setTypeList)}
          clearable
          searchable
          placeholder="Any"
          w={240}
          data-testid="alarm-type-filter"
        />
        <TextInput
          label="Search"
          placeholder="Type, originator, severity…"
          value={search}
          onChange={(e) => filtered(setSearch)(e.currentTarget.value)}
          w={240}
          data-testid="alarm-search"
        />
        <Text size="sm" c="dimmed" aria-live="polite" ml="auto">
          {total === undefined ? 'Loading…' : `${total} alarm${total === 1 ? '' : 's'}`}
        </Text>
      </Group>
      <AlarmsTable
        query={query}
        onPage={(page, pageSize) => setPaging({ page, pageSize })}
        emptyText={
          severityList.length || typeList.length || textSearch
            ? 'No alarm matches these filters.'
            : statusList.length === 0
              ? 'No alarms yet. Raise one here, over REST, or from a rule.'
              : statusList.join() === 'ACTIVE'
                ? 'No active alarms. Raise one here, over REST, or from a rule.'
                : 'No alarm has this status.'
        }
      />
      {info.data && (
        <Stack gap={4}>
          <Text size="sm" fw={500}>
            Raise one over REST (ThingsBoard’s POST /api/alarm)
          </Text>
          <CopyValue value={curlExample(info.data.http)} label="Copy curl command" block />
        </Stack>
      )}
      <RaiseAlarmModal opened={raising} onClose={() => setRaising(false)} />
    </Stack>
  );
}

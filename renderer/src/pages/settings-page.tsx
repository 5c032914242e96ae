import {
  Card,
  SegmentedControl,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
  useMantineColorScheme,
  type MantineColorScheme,
} from '@mantine/core';
import { usePlatformInfo } from '../api/hooks.ts';
import { CopyValue } from '../components/copy-value.tsx';
import { ErrorAlert } from '../components/error-alert.tsx';
import { useSavedNotice } from '../components/saved-notice.tsx';
import { PageHeader } from '../components/page-header.tsx';
import { useLiveStatus } from '../live/live-provider.tsx';
import { TransportLimitsCard } from './transport-limits-card.tsx';

function AppearanceCard() {
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  const saved = useSavedNotice();
  return (
    <Card withBorder radius="md" p="md">
      <Stack gap="xs">
        <Title order={4}>Appearance</Title>
        <Text size="sm" c="dimmed">
          Remembered on this computer. Auto follows the system.
        </Text>
        <SegmentedControl
          aria-label="Theme"
          w="fit-content"
          value={colorScheme}
          onChange={(v) => {
            setColorScheme(v as MantineColorScheme);
            saved.show(`Theme ${v} saved on this computer.`);
          }}
          data={[
            { value: 'light', label: 'Light' },
            { value: 'dark', label: 'Dark' },
            { value: 'auto', label: 'Auto' },
          ]}
          data-testid="theme-choice"
        />
        {saved.notice}
      </Stack>
    </Card>
  );
}

function PlatformCard() {
  const info = usePlatformInfo();
  const live = useLiveStatus();
  return (
    <Card withBorder radius="md" p="md">
      <Stack gap="xs">
        <Title order={4}>Platform</Title>
        <ErrorAlert error={info.error} title="Could not load the platform's addresses" />
        {!info.data ? (
          !info.error && <Skeleton h={120} />
        ) : (
          <Table variant="vertical" layout="fixed">
            <Table.Tbody>
              <Table.Tr>
                <Table.Th w={200}>Version</Table.Th>
                <Table.Td data-testid="platform-version">{info.data.version}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>REST API, UI, explorer</Table.Th>
                <Table.Td>
                  <CopyValue value={info.data.http} label="Copy URL" />
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>MQTT broker</Table.Th>
                <Table.Td>
                  <CopyValue value={info.data.mqtt} label="Copy URL" />
                  {!info.data.mqttBroker && (
                    <Text size="xs" c="dimmed">
                      Port reserved; the broker arrives in step 3.
                    </Text>
                  )}
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Report API</Table.Th>
                <Table.Td>
                  <CopyValue value={info.data.analytics} label="Copy URL" />
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Live updates</Table.Th>
                <Table.Td>WebSocket /api/sandboard/ws: {live}</Table.Td>
              </Table.Tr>
            </Table.Tbody>
          </Table>
        )}
      </Stack>
    </Card>
  );
}

export default function SettingsPage() {
  return (
    <Stack gap="lg">
      <PageHeader
        title="Settings"
        description="How Sandboard looks, where it listens, and the limits its transports enforce."
      />
      <AppearanceCard />
      <PlatformCard />
      <TransportLimitsCard />
    </Stack>
  );
}

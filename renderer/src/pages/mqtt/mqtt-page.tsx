import { Group, NumberInput, Switch, Tabs, Text } from '@mantine/core';
import { useState } from 'react';
import { useCurrentUser } from '../../api/hooks.ts';
import { useInspectorStatus, useSaveInspectorSettings } from '../../api/mqtt-hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatNumber } from '../../components/format.ts';
import { PageHeader } from '../../components/page-header.tsx';
import { RecordButton } from '../recordings/record-button.tsx';
import { ClientTab } from './client-tab.tsx';
import { SessionsTab } from './sessions-tab.tsx';
import { TopicsTab } from './topics-tab.tsx';
import { TrafficTab } from './traffic-tab.tsx';

const TABS = ['sessions', 'traffic', 'topics', 'client'] as const;
type Tab = (typeof TABS)[number];

const MB = 1024 * 1024;

/** Recording on or off and the ring's budget (the tenant administrator's), with how full it is. */
function InspectorSettingsBar() {
  const status = useInspectorStatus();
  const save = useSaveInspectorSettings();
  const user = useCurrentUser();
  const tenant = user.data?.authority === 'TENANT_ADMIN';
  const s = status.data;
  if (!s) return null;
  return (
    <Group gap="md" align="center">
      <Switch
        label="Record traffic"
        checked={s.enabled}
        disabled={!tenant || save.isPending}
        onChange={(e) => save.mutate({ enabled: e.currentTarget.checked, budgetBytes: s.budgetBytes })}
        data-testid="inspector-enabled"
      />
      <NumberInput
        aria-label="Inspector memory budget in MB"
        size="xs"
        w={110}
        min={1}
        max={1024}
        suffix=" MB"
        disabled={!tenant}
        value={Math.round(s.budgetBytes / MB)}
        onBlur={(e) => {
          const mb = Number(e.currentTarget.value.replace(/[^\d]/g, ''));
          if (mb >= 1 && mb !== Math.round(s.budgetBytes / MB))
            save.mutate({ enabled: s.enabled, budgetBytes: mb * MB });
        }}
      />
      <Text size="xs" c="dimmed" data-testid="inspector-fill">
        {formatNumber(s.messages)} messages, {(s.bytes / MB).toFixed(1)} of {Math.round(s.budgetBytes / MB)}{' '}
        MB
      </Text>
      <ErrorAlert error={save.error} />
    </Group>
  );
}

/** The MQTT page: who is connected to the embedded broker, what they send and receive, by topic. */
export default function MqttPage() {
  const [tab, setTab] = useState<Tab>(() => {
    const asked = new URLSearchParams(window.location.search).get('tab');
    return TABS.includes(asked as Tab) ? (asked as Tab) : 'sessions';
  });
  return (
    <>
      <PageHeader
        title="MQTT"
        description="Clients of the embedded broker, every message with the platform's answer, and topics as a tree"
        actions={
          <>
            <InspectorSettingsBar />
            <RecordButton filter={{}} scope="mqtt" what="every device and gateway" />
          </>
        }
      />
      <Tabs value={tab} onChange={(v) => v && setTab(v as Tab)} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="sessions" data-testid="tab-sessions">
            Sessions
          </Tabs.Tab>
          <Tabs.Tab value="traffic" data-testid="tab-traffic">
            Traffic
          </Tabs.Tab>
          <Tabs.Tab value="topics" data-testid="tab-topics">
            Topics
          </Tabs.Tab>
          <Tabs.Tab value="client" data-testid="tab-client">
            Client
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="sessions" pt="md">
          <SessionsTab />
        </Tabs.Panel>
        <Tabs.Panel value="traffic" pt="md">
          <TrafficTab />
        </Tabs.Panel>
        <Tabs.Panel value="topics" pt="md">
          <TopicsTab />
        </Tabs.Panel>
        <Tabs.Panel value="client" pt="md">
          <ClientTab />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}

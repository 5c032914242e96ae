import { Anchor, Stack, Text } from '@mantine/core';
import { useStats } from '../api/hooks.ts';
import { ArrivesLater } from '../components/arrives-later.tsx';
import { PageHeader } from '../components/page-header.tsx';
import { Link } from '../router.tsx';

export default function GatewaysPage() {
  const stats = useStats();
  return (
    <Stack gap="lg">
      <PageHeader
        title="Gateways & Simulation"
        description="Gateways proxy many devices over one MQTT connection."
      />
      <ArrivesLater title="The gateway simulator arrives in step 3">
        <Text size="sm">
          With it you will run simulated gateways and devices (scenarios of telemetry, attributes, RPC and
          claims) against this platform or a real ThingsBoard. The gateway MQTT API it drives (
          <code>v1/gateway/…</code>) already works: a real gateway can connect with its access token today.
        </Text>
      </ArrivesLater>
      <Text size="sm">
        Today: <b data-testid="gateway-count">{stats.data ? stats.data.gateways : '…'}</b> device
        {stats.data?.gateways === 1 ? ' is' : 's are'} marked as gateway. Mark one with “Is gateway” on its{' '}
        <Anchor component={Link} to="/devices">
          device form
        </Anchor>
        .
      </Text>
    </Stack>
  );
}

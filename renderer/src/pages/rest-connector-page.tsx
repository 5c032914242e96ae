import { Stack, Text } from '@mantine/core';
import { ArrivesLater } from '../components/arrives-later.tsx';
import { PageHeader } from '../components/page-header.tsx';

export default function RestConnectorPage() {
  return (
    <Stack gap="lg">
      <PageHeader
        title="REST Connector"
        description="The gateway's HTTP endpoints that turn requests into device data."
      />
      <ArrivesLater title="The REST connector arrives in step 3">
        <Text size="sm">
          It will read a ThingsBoard gateway <code>rest.json</code> (endpoints, converters, basic or anonymous
          security, attribute requests and updates, server-side RPC), open its HTTP endpoints, and forward
          what they receive to this platform through the gateway MQTT API.
        </Text>
      </ArrivesLater>
    </Stack>
  );
}

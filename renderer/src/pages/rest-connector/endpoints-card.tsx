import { Alert, Badge, Button, Card, Code, Group, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { CODE_WRAP_STYLE, WrapAtSeparators } from '../../components/code-wrap.tsx';
import type { RestConnectorSummary, RestEndpointInfo } from '../../api/rest-connector-api.ts';
import { CopyValueButton } from '../../components/copy-value.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { MethodBadge } from './connector-ui.tsx';

const RESPONSE_LABELS: Record<string, string> = {
  status: 'status code only',
  fixed: 'fixed body',
  remote: 'remote (rule chain)',
  attributes: 'attribute values',
};

/** Every endpoint and method of the connector, with a curl command to copy and a way to try it. */
export function EndpointsCard({
  connector,
  endpoints,
  error,
  onTry,
}: {
  connector: RestConnectorSummary;
  endpoints: RestEndpointInfo[] | undefined;
  error: unknown;
  onTry: (endpoint: RestEndpointInfo) => void;
}) {
  const running = connector.state === 'running';
  return (
    <Card withBorder radius="md" p="md" data-testid="connector-endpoints">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={4}>Endpoints</Title>
          {connector.baseUrl && (
            <Text size="sm" ff="monospace" c="dimmed">
              {connector.baseUrl}
            </Text>
          )}
        </Group>
        {!running && (
          <Alert variant="light" color="gray">
            The connector is not running: the commands show where it will listen once started.
          </Alert>
        )}
        <ErrorAlert error={error} title="Could not load the endpoints" />
        {!endpoints && !error && <Skeleton h={160} />}
        {endpoints && endpoints.length === 0 && (
          <Text size="sm" c="dimmed">
            rest.json has no endpoints (mapping and attributeRequests are empty).
          </Text>
        )}
        {endpoints && endpoints.length > 0 && (
          <Table.ScrollContainer minWidth={900}>
            <Table verticalSpacing="sm" data-testid="endpoints-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th w={80}>Method</Table.Th>
                  <Table.Th>Endpoint</Table.Th>
                  <Table.Th>curl</Table.Th>
                  <Table.Th w={90} />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {endpoints.map((e) => (
                  <Table.Tr
                    key={`${e.kind}-${e.index}-${e.method}`}
                    data-testid="endpoint-row"
                    data-method={e.method}
                    data-path={e.path}
                  >
                    <Table.Td style={{ verticalAlign: 'top' }}>
                      <MethodBadge method={e.method} />
                    </Table.Td>
                    <Table.Td style={{ verticalAlign: 'top', minWidth: 220 }}>
                      <Text ff="monospace" size="sm" fw={600}>
                        {e.path}
                      </Text>
                      <Group gap={4} mt={4}>
                        <Badge size="xs" variant="light" color={e.security === 'basic' ? 'orange' : 'gray'}>
                          {e.security}
                        </Badge>
                        <Badge size="xs" variant="light" color="blue" tt="none">
                          {e.kind === 'attributeRequest' ? 'attribute request' : (e.converter ?? 'json')}
                        </Badge>
                        <Badge size="xs" variant="outline" color="gray" tt="none">
                          {RESPONSE_LABELS[e.response] ?? e.response}
                        </Badge>
                      </Group>
                      <Text size="xs" c="dimmed" mt={4}>
                        {e.kind === 'mapping' ? `mapping[${e.index}]` : `attributeRequests[${e.index}]`}
                      </Text>
                    </Table.Td>
                    <Table.Td style={{ verticalAlign: 'top' }}>
                      <Group gap={4} wrap="nowrap" align="flex-start">
                        <Code
                          block
                          style={{
                            flex: 1,
                            minWidth: 0,
                            ...CODE_WRAP_STYLE,
                            fontSize: 'var(--mantine-font-size-xs)',
                          }}
                          data-testid="endpoint-curl"
                        >
                          <WrapAtSeparators text={e.curl} />
                        </Code>
                        <CopyValueButton value={e.curl} label="Copy curl command" />
                      </Group>
                    </Table.Td>
                    <Table.Td style={{ verticalAlign: 'top' }}>
                      <Button size="xs" variant="light" onClick={() => onTry(e)} data-testid="try-endpoint">
                        Try it
                      </Button>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Stack>
    </Card>
  );
}

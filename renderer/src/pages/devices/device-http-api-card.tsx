import { Card, Select, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import type { PlatformInfo } from '../../api/client.ts';
import { useDeviceCredentials, usePlatformInfo } from '../../api/hooks.ts';
import { CopyValue } from '../../components/copy-value.tsx';

/** The device HTTP API calls beyond telemetry, as curl commands with this device's token. */
export function deviceHttpExamples(
  info: PlatformInfo,
  token: string,
): { value: string; label: string; command: string }[] {
  const base = `${info.http}/api/v1/${token}`;
  const post = (path: string, body: string) =>
    `curl -v -X POST ${base}${path} \\\n  -H "Content-Type: application/json" \\\n  -d '${body}'`;
  return [
    {
      value: 'attributes',
      label: 'Post client attributes',
      command: post('/attributes', '{"firmwareVersion":"1.0.3"}'),
    },
    {
      value: 'get-attributes',
      label: 'Read attributes (clientKeys / sharedKeys)',
      command: `curl -v "${base}/attributes?clientKeys=firmwareVersion&sharedKeys=targetTemperature"`,
    },
    {
      value: 'attribute-updates',
      label: 'Wait for shared attribute updates (long poll)',
      command: `curl -v "${base}/attributes/updates?timeout=20000"`,
    },
    {
      value: 'rpc-poll',
      label: 'Wait for a server-side RPC (long poll)',
      command: `curl -v "${base}/rpc?timeout=20000"`,
    },
    { value: 'rpc-reply', label: 'Answer RPC request 1', command: post('/rpc/1', '{"result":"ok"}') },
    {
      value: 'session-limits',
      label: 'Ask for the session limits (client-side RPC)',
      command: post('/rpc', '{"method":"getSessionLimits","params":{}}'),
    },
    {
      value: 'claim',
      label: 'Allow claiming',
      command: post('/claim', '{"secretKey":"abc","durationMs":60000}'),
    },
  ];
}

/** Ready-to-paste curl commands for the rest of ThingsBoard's device HTTP API. */
export function DeviceHttpApiCard({ deviceId }: { deviceId: string }) {
  const info = usePlatformInfo();
  const credentials = useDeviceCredentials(deviceId);
  const [chosen, setChosen] = useState('attributes');
  const token =
    credentials.data?.credentialsType === 'ACCESS_TOKEN' ? credentials.data.credentialsId : undefined;
  const examples = info.data && token ? deviceHttpExamples(info.data, token) : [];
  const example = examples.find((e) => e.value === chosen) ?? examples[0];
  return (
    <Card withBorder radius="md" p="md" data-testid="device-http-api">
      <Stack gap="xs">
        <Title order={4}>Device HTTP API</Title>
        <Text size="sm" c="dimmed">
          ThingsBoard&apos;s <code>/api/v1/&#123;token&#125;/…</code>: no login, the access token is in the
          path. Long polls answer 408 when nothing comes in time.
        </Text>
        {credentials.data && !token ? (
          <Text size="sm">
            This device connects with MQTT basic credentials; the HTTP API needs an access token.
          </Text>
        ) : !example ? (
          <Skeleton h={80} />
        ) : (
          <>
            <Select
              aria-label="HTTP call"
              data={examples.map(({ value, label }) => ({ value, label }))}
              value={example.value}
              onChange={(v) => v && setChosen(v)}
              allowDeselect={false}
              w="fit-content"
              miw={320}
            />
            <CopyValue value={example.command} block label="Copy curl command" testId="http-api-example" />
          </>
        )}
      </Stack>
    </Card>
  );
}

import { Checkbox, SimpleGrid, Stack, Textarea, TextInput } from '@mantine/core';
import type { ConnectorTarget } from '../../api/rest-connector-api.ts';

/** What a connector on another platform needs: where, its gateway token, and for mqtts:// whom to trust. */
export interface RemotePlatform {
  url: string;
  token: string;
  ca: string;
  insecure: boolean;
}

export const NO_REMOTE: RemotePlatform = { url: 'mqtt://localhost:1883', token: '', ca: '', insecure: false };

export function remoteOf(target: ConnectorTarget): RemotePlatform {
  return {
    url: target.url ?? NO_REMOTE.url,
    token: target.token ?? '',
    ca: target.ca ?? '',
    insecure: target.insecure ?? false,
  };
}

/** The target to save; the TLS settings only for an mqtts:// URL. */
export function targetOf(r: RemotePlatform): ConnectorTarget {
  const tls = r.url.trim().startsWith('mqtts://');
  return {
    url: r.url.trim(),
    token: r.token.trim(),
    ...(tls && r.ca.trim() ? { ca: r.ca.trim() } : {}),
    ...(tls && r.insecure ? { insecure: true } : {}),
  };
}

export function RemotePlatformFields({
  value,
  onChange,
}: {
  value: RemotePlatform;
  onChange: (next: RemotePlatform) => void;
}) {
  const set = <K extends keyof RemotePlatform>(key: K, v: RemotePlatform[K]) =>
    onChange({ ...value, [key]: v });
  const tls = value.url.trim().startsWith('mqtts://');
  return (
    <Stack gap="xs">
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput
          label="MQTT URL"
          description="mqtts:// for a platform behind TLS (port 8883 on ThingsBoard)"
          value={value.url}
          onChange={(e) => set('url', e.currentTarget.value)}
          placeholder="mqtt://host:1883"
        />
        <TextInput
          label="Gateway access token"
          value={value.token}
          onChange={(e) => set('token', e.currentTarget.value)}
        />
      </SimpleGrid>
      {tls && (
        <>
          <Textarea
            label="CA certificate (PEM)"
            description="The platform's certificate or its authority, when the system does not trust it already"
            placeholder="-----BEGIN CERTIFICATE-----"
            autosize
            minRows={2}
            maxRows={6}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 12 } }}
            value={value.ca}
            onChange={(e) => set('ca', e.currentTarget.value)}
            disabled={value.insecure}
          />
          <Checkbox
            label="Do not check the platform's certificate (demos only)"
            checked={value.insecure}
            onChange={(e) => set('insecure', e.currentTarget.checked)}
          />
        </>
      )}
    </Stack>
  );
}

import { Stack, Text } from '@mantine/core';
import { usePlatformInfo } from '../api/hooks.ts';
import { ArrivesLater } from '../components/arrives-later.tsx';
import { PageHeader } from '../components/page-header.tsx';

export default function ReportsPage() {
  const info = usePlatformInfo();
  return (
    <Stack gap="lg">
      <PageHeader
        title="Reports"
        description="Saved table views over telemetry, run through the report API."
      />
      <ArrivesLater title="The analytics report API arrives in a later step">
        <Text size="sm">
          Its port is already reserved{info.data?.analytics ? ` at ${info.data.analytics}` : ''}. The step
          brings table views, the report query compiler and the report endpoints.
        </Text>
      </ArrivesLater>
    </Stack>
  );
}

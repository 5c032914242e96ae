import { Stack, Text } from '@mantine/core';
import { ArrivesLater } from '../components/arrives-later.tsx';
import { PageHeader } from '../components/page-header.tsx';

export default function EdgesPage() {
  return (
    <Stack gap="lg">
      <PageHeader title="Edges" description="Edge instances that sync selected data from this platform." />
      <ArrivesLater title="Edges arrive in a later step">
        <Text size="sm">
          They come with the “push to edge” rule node and a durable edge event queue that edges pull from.
        </Text>
      </ArrivesLater>
    </Stack>
  );
}

import { Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { PageHeader } from './page-header.tsx';

/** What a page shows a user who is not the tenant administrator: its title and why it is empty. */
export function AdminOnlyPage({ title, children }: { title: ReactNode; children: ReactNode }) {
  return (
    <Stack gap="lg">
      <PageHeader title={title} />
      <Text size="sm" c="dimmed">
        {children}
      </Text>
    </Stack>
  );
}

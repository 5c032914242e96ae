import { Alert, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** Says plainly that a part of Sandboard is not built yet, and what it will do. Never fake data. */
export function ArrivesLater({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Alert variant="light" color="gray" title={title} data-testid="arrives-later">
      <Stack gap="xs">{typeof children === 'string' ? <Text size="sm">{children}</Text> : children}</Stack>
    </Alert>
  );
}

import { Paper, Skeleton, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** A labelled figure: a counter of a simulation, an edge queue, a simulated edge. */
export function StatTile({
  label,
  value,
  note,
  testId,
  color,
  size = 'md',
}: {
  label: string;
  value: string | undefined;
  note?: ReactNode;
  testId?: string;
  color?: string;
  /** lg: the overview's headline figures */
  size?: 'md' | 'lg';
}) {
  const lg = size === 'lg';
  return (
    <Paper withBorder p={lg ? 'md' : 'sm'} radius="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {label}
      </Text>
      {value === undefined ? (
        <Skeleton h={lg ? 34 : 28} mt={6} w="60%" />
      ) : (
        <Text fz={lg ? 30 : 24} fw={700} lh={1.3} c={color} data-testid={testId}>
          {value}
        </Text>
      )}
      {note && (
        <Text size="xs" c="dimmed" mt={lg ? 4 : 2}>
          {note}
        </Text>
      )}
    </Paper>
  );
}

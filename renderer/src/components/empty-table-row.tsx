import { Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** The one row a table shows while it has nothing to list: dimmed, centred, across every column. */
export function EmptyTableRow({
  columns,
  roomy = false,
  children,
}: {
  columns: number;
  /** more space around the text, for a page's main list */
  roomy?: boolean;
  children: ReactNode;
}) {
  return (
    <Table.Tr>
      <Table.Td colSpan={columns}>
        <Text size="sm" c="dimmed" ta="center" py={roomy ? 'lg' : 'md'}>
          {children}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}

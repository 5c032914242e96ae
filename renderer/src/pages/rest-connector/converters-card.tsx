import { Badge, Button, Card, Code, Group, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import type { RestEndpointInfo } from '../../api/rest-connector-api.ts';
import { useConverterModules } from '../../api/rest-connector-hooks.ts';
import { CopyValue } from '../../components/copy-value.tsx';
import { converterFolderOpener } from '../../components/desktop-files.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDateTime, formatNumber } from '../../components/format.ts';
import { EmptyTableRow } from '../../components/empty-table-row.tsx';

/**
 * Where custom converters go and what is there: the folder of the data directory (copyable, and opened in
 * the file manager in the desktop app), its modules, and the classes this connector's rest.json names.
 */
export function ConvertersCard({ endpoints }: { endpoints: RestEndpointInfo[] | undefined }) {
  const converters = useConverterModules();
  const openFolder = converterFolderOpener();
  const [openError, setOpenError] = useState<unknown>(null);
  const used = [
    ...new Set(
      (endpoints ?? []).flatMap((e) =>
        e.kind === 'mapping' && e.converter && e.converter !== 'json' ? [e.converter] : [],
      ),
    ),
  ];
  const info = converters.data;

  return (
    <Card withBorder radius="md" p="md" data-testid="converters-card">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={4}>Custom converters</Title>
          {openFolder && (
            <Button
              variant="light"
              size="xs"
              onClick={() => {
                setOpenError(null);
                openFolder().catch(setOpenError);
              }}
            >
              Open folder
            </Button>
          )}
        </Group>
        <Text size="sm" c="dimmed">
          A mapping whose converter is <Code>{'{"type": "custom", "extension": "ClassName"}'}</Code> uses the
          class ClassName exported by an ES module (.mjs or .js) of this folder, ClassName.mjs or ClassName.js
          first. {info ? `${info.sample}, the gateway's sample,` : "The gateway's sample"} is copied here the
          first time a connector uses it. Connectors load converters when they start: restart this one after
          changing its converter.
        </Text>
        <ErrorAlert error={converters.error} title="Could not list the converters" />
        <ErrorAlert error={openError} title="Could not open the folder" />
        {info ? (
          <CopyValue value={info.dir} label="Copy the folder's path" testId="converters-dir" />
        ) : (
          !converters.error && <Skeleton h={24} />
        )}
        {used.length > 0 && (
          <Group gap="xs">
            <Text size="sm">This connector uses</Text>
            {used.map((name) => (
              <Badge key={name} variant="light" tt="none" data-testid="converter-used">
                {name}
              </Badge>
            ))}
          </Group>
        )}
        {info && (
          <Table verticalSpacing="xs" data-testid="converter-modules">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Module</Table.Th>
                <Table.Th ta="right">Size</Table.Th>
                <Table.Th>Modified</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {info.modules.map((m) => (
                <Table.Tr key={m.file} data-testid="converter-module">
                  <Table.Td>
                    <Code>{m.file}</Code>
                  </Table.Td>
                  <Table.Td ta="right">{formatNumber(m.sizeBytes)} bytes</Table.Td>
                  <Table.Td>{formatDateTime(m.modifiedTime)}</Table.Td>
                </Table.Tr>
              ))}
              {info.modules.length === 0 && (
                <EmptyTableRow columns={3}>No modules in the folder yet.</EmptyTableRow>
              )}
            </Table.Tbody>
          </Table>
        )}
      </Stack>
    </Card>
  );
}

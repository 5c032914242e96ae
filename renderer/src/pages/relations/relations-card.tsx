import {
  Anchor,
  Autocomplete,
  Button,
  Card,
  Group,
  SegmentedControl,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useState, type FormEvent } from 'react';
import type { SearchDirection } from '../../../../shared/schemas/relations.ts';
import type { EntityRef, EntityRelationInfo } from '../../api/entities-api.ts';
import { useDeleteRelation, useRelations, useSaveRelation } from '../../api/entities-hooks.ts';
import { EmptyTableRow } from '../../components/empty-table-row.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { Link } from '../../router.tsx';
import { EntityPicker, type PickableType } from '../alarms/entity-picker.tsx';

const COMMON_TYPES = ['Contains', 'Manages', 'Uses'];

function entityPath(ref: EntityRef): string | null {
  if (ref.entityType === 'DEVICE') return `/devices/${ref.id}`;
  if (ref.entityType === 'ASSET') return `/assets/${ref.id}`;
  return null;
}

function RelationRows({
  entity,
  direction,
  canEdit,
}: {
  entity: EntityRef;
  direction: SearchDirection;
  canEdit: boolean;
}) {
  const relations = useRelations(entity, direction);
  const remove = useDeleteRelation();
  const rows = relations.data ?? [];
  const other = (r: EntityRelationInfo) => (direction === 'FROM' ? r.to : r.from);
  const name = (r: EntityRelationInfo) => (direction === 'FROM' ? r.toName : r.fromName) ?? other(r).id;
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500}>
        {direction === 'FROM' ? 'From this entity' : 'To this entity'}
      </Text>
      <ErrorAlert error={relations.error ?? remove.error} title="Relations" />
      <Table verticalSpacing={4} data-testid={`relations-${direction.toLowerCase()}`}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Type</Table.Th>
            <Table.Th>{direction === 'FROM' ? 'To' : 'From'}</Table.Th>
            {canEdit && <Table.Th style={{ width: 1 }} aria-label="Actions" />}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((r) => {
            const path = entityPath(other(r));
            return (
              <Table.Tr key={`${r.type}:${other(r).id}`} data-testid="relation-row">
                <Table.Td>{r.type}</Table.Td>
                <Table.Td>
                  {path ? (
                    <Anchor component={Link} to={path} size="sm">
                      {name(r)}
                    </Anchor>
                  ) : (
                    <Text size="sm">{name(r)}</Text>
                  )}{' '}
                  <Text span size="xs" c="dimmed">
                    {other(r).entityType}
                  </Text>
                </Table.Td>
                {canEdit && (
                  <Table.Td>
                    <Button
                      size="compact-xs"
                      variant="subtle"
                      color="red"
                      loading={remove.isPending}
                      onClick={() => remove.mutate(r)}
                      aria-label={`Delete the ${r.type} relation with ${name(r)}`}
                    >
                      Delete
                    </Button>
                  </Table.Td>
                )}
              </Table.Tr>
            );
          })}
          {relations.data && rows.length === 0 && (
            <EmptyTableRow columns={canEdit ? 3 : 2}>None.</EmptyTableRow>
          )}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

/** Adds a relation between this entity and a device or an asset, either way round. */
function AddRelationForm({ entity }: { entity: EntityRef }) {
  const save = useSaveRelation();
  const [direction, setDirection] = useState<SearchDirection>('FROM');
  const [type, setType] = useState('Contains');
  const [otherType, setOtherType] = useState<PickableType>('DEVICE');
  const [otherId, setOtherId] = useState<string | null>(null);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!otherId || !type.trim()) return;
    const other = { entityType: otherType, id: otherId };
    save.mutate(
      {
        from: direction === 'FROM' ? entity : other,
        to: direction === 'FROM' ? other : entity,
        type: type.trim(),
        typeGroup: 'COMMON',
      },
      { onSuccess: () => setOtherId(null) },
    );
  };
  return (
    <form onSubmit={onSubmit} aria-label="Add a relation">
      <Stack gap="xs">
        <Group align="flex-end" gap="xs" wrap="wrap">
          <SegmentedControl
            aria-label="Direction"
            value={direction}
            onChange={(v) => setDirection(v as SearchDirection)}
            data={[
              { value: 'FROM', label: 'This → other' },
              { value: 'TO', label: 'Other → this' },
            ]}
          />
          <Autocomplete
            label="Relation type"
            data={COMMON_TYPES}
            value={type}
            onChange={setType}
            maxLength={255}
            w={160}
            data-testid="relation-type"
          />
        </Group>
        <EntityPicker
          entityType={otherType}
          onEntityType={setOtherType}
          value={otherId}
          onChange={setOtherId}
          label="Other entity"
          testId="relation-target"
        />
        <ErrorAlert error={save.error} title="Could not add the relation" />
        <Group justify="flex-end">
          <Button type="submit" loading={save.isPending} disabled={!otherId} data-testid="relation-add">
            Add relation
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** A device's or an asset's relations both ways, with the names at the other end. */
export function RelationsCard({ entity, canEdit }: { entity: EntityRef; canEdit: boolean }) {
  return (
    <Card withBorder radius="md" p="md" data-testid="relations-card">
      <Stack gap="sm">
        <Title order={4}>Relations</Title>
        <RelationRows entity={entity} direction="FROM" canEdit={canEdit} />
        <RelationRows entity={entity} direction="TO" canEdit={canEdit} />
        {canEdit && <AddRelationForm entity={entity} />}
      </Stack>
    </Card>
  );
}

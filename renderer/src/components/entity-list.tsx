import {
  Anchor,
  Button,
  Group,
  Pagination,
  Paper,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  UnstyledButton,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState, type ReactNode } from 'react';
import type { PageData } from '../../../shared/schemas/common.ts';
import { Link, navigate } from '../router.tsx';
import { EmptyTableRow } from './empty-table-row.tsx';
import { ErrorAlert } from './error-alert.tsx';
import { formatDateTime } from './format.ts';
import { SortIcon } from './icons.tsx';

/**
 * The list page every entity kind shares (devices, assets, and the ones to come): search by name,
 * filters, a table whose headers sort, a row that opens the entity, Edit and Delete, pages.
 */

export interface EntitySort<S extends string> {
  property: S;
  order: 'ASC' | 'DESC';
}

/** Search, page, page size and sort of a list, with the debounced search text the query uses. */
export function useEntityListState<S extends string>(defaultSort: S) {
  const [search, setSearchText] = useState('');
  const [textSearch] = useDebouncedValue(search.trim(), 300);
  const [page, setPage] = useState(0);
  const [pageSize, setPageSize] = useState(20);
  const [sort, setSortState] = useState<EntitySort<S>>({ property: defaultSort, order: 'DESC' });
  return {
    search,
    textSearch,
    page,
    pageSize,
    sort,
    setPage,
    setSearch: (text: string) => {
      setSearchText(text);
      setPage(0);
    },
    setPageSize: (size: number) => {
      setPageSize(size);
      setPage(0);
    },
    /** a second click reverses; a new column starts ascending, a time column newest first */
    onSort: (property: S) => {
      setSortState((s) =>
        s.property === property
          ? { property, order: s.order === 'ASC' ? 'DESC' : 'ASC' }
          : { property, order: property.endsWith('Time') ? 'DESC' : 'ASC' },
      );
      setPage(0);
    },
    /** what the page query takes */
    query: {
      page,
      pageSize,
      textSearch: textSearch || undefined,
      sortProperty: sort.property,
      sortOrder: sort.order,
    },
  };
}

export type EntityListState<S extends string> = ReturnType<typeof useEntityListState<S>>;

export interface EntityColumn<T, S extends string> {
  label: string;
  /** the header sorts by this property when given */
  sortProperty?: S;
  render: (row: T) => ReactNode;
}

interface Identified {
  id: { id: string };
  name: string;
}

/** The columns every entity has: its name (a link), and its creation time. */
export function nameColumn<T extends Identified, S extends string>(
  hrefOf: (row: T) => string,
  testId: string,
  sortProperty: S,
  extra?: (row: T) => ReactNode,
): EntityColumn<T, S> {
  return {
    label: 'Name',
    sortProperty,
    render: (row) => (
      <Group gap="xs" wrap="nowrap">
        <Anchor component={Link} to={hrefOf(row)} fw={500} data-testid={testId}>
          {row.name}
        </Anchor>
        {extra?.(row)}
      </Group>
    ),
  };
}

export function createdColumn<T extends { createdTime: number }, S extends string>(
  sortProperty: S,
): EntityColumn<T, S> {
  return {
    label: 'Created',
    sortProperty,
    render: (row) => (
      <Text size="sm" c="dimmed">
        {formatDateTime(row.createdTime)}
      </Text>
    ),
  };
}

function SortableHeader<S extends string>({
  label,
  property,
  sort,
  onSort,
}: {
  label: string;
  property: S;
  sort: EntitySort<S>;
  onSort: (property: S) => void;
}) {
  const active = sort.property === property;
  return (
    <Table.Th aria-sort={active ? (sort.order === 'ASC' ? 'ascending' : 'descending') : 'none'}>
      <UnstyledButton onClick={() => onSort(property)} data-testid={`sort-${property}`}>
        <Group gap={4} wrap="nowrap">
          <Text fw={700} size="sm">
            {label}
          </Text>
          <SortIcon sortOrder={active ? sort.order : null} />
        </Group>
      </UnstyledButton>
    </Table.Th>
  );
}

const PAGE_SIZES = ['10', '20', '50', '100'];

export function EntityList<T extends Identified, S extends string>({
  noun,
  state,
  data,
  error,
  stale,
  columns,
  hrefOf,
  tableTestId,
  searchTestId,
  filters,
  onEdit,
  onDelete,
  empty,
  filtered = false,
}: {
  /** singular, lower case: "device" */
  noun: string;
  state: EntityListState<S>;
  data: PageData<T> | undefined;
  error: unknown;
  /** the previous page shown while the next loads */
  stale: boolean;
  columns: EntityColumn<T, S>[];
  hrefOf: (row: T) => string;
  tableTestId: string;
  searchTestId: string;
  /** filter inputs beside the search */
  filters?: ReactNode;
  /** Edit and Delete on each row (none for a read-only user) */
  onEdit?: (row: T) => void;
  onDelete?: (row: T) => void;
  /** what an empty list says when no search is typed */
  empty: string;
  /** a filter is set: an empty list says so */
  filtered?: boolean;
}) {
  const rows = data?.data ?? [];
  const width = columns.length + (onEdit || onDelete ? 1 : 0);
  const plural = (n: number) => `${n} ${noun}${n === 1 ? '' : 's'}`;
  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <Group gap="sm" wrap="wrap" align="flex-end">
          <TextInput
            placeholder="Search by name"
            aria-label={`Search ${noun}s by name`}
            value={state.search}
            onChange={(e) => state.setSearch(e.currentTarget.value)}
            w={320}
            maw="100%"
            data-testid={searchTestId}
          />
          {filters}
        </Group>
        <Text size="sm" c="dimmed" aria-live="polite">
          {data ? plural(data.totalElements) : 'Loading…'}
        </Text>
      </Group>
      <ErrorAlert error={error} title={`Could not load the ${noun}s`} />
      <Paper withBorder radius="md">
        <Table.ScrollContainer minWidth={640}>
          <Table highlightOnHover verticalSpacing="sm" data-testid={tableTestId}>
            <Table.Thead>
              <Table.Tr>
                {columns.map((c) =>
                  c.sortProperty ? (
                    <SortableHeader
                      key={c.label}
                      label={c.label}
                      property={c.sortProperty}
                      sort={state.sort}
                      onSort={state.onSort}
                    />
                  ) : (
                    <Table.Th key={c.label}>{c.label}</Table.Th>
                  ),
                )}
                {(onEdit || onDelete) && <Table.Th style={{ width: 1 }} aria-label="Actions" />}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody style={{ opacity: stale ? 0.6 : 1 }}>
              {rows.map((row) => (
                <Table.Tr
                  key={row.id.id}
                  style={{ cursor: 'pointer' }}
                  onClick={(e) => {
                    if ((e.target as HTMLElement).closest('a, button')) return;
                    navigate(hrefOf(row));
                  }}
                >
                  {columns.map((c) => (
                    <Table.Td key={c.label}>{c.render(row)}</Table.Td>
                  ))}
                  {(onEdit || onDelete) && (
                    <Table.Td>
                      <Group gap={4} wrap="nowrap">
                        {onEdit && (
                          <Button size="compact-sm" variant="subtle" onClick={() => onEdit(row)}>
                            Edit
                          </Button>
                        )}
                        {onDelete && (
                          <Button
                            size="compact-sm"
                            variant="subtle"
                            color="red"
                            onClick={() => onDelete(row)}
                          >
                            Delete
                          </Button>
                        )}
                      </Group>
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
              {data && rows.length === 0 && (
                <EmptyTableRow columns={width} roomy>
                  {state.textSearch
                    ? `No ${noun} name contains “${state.textSearch}”${filtered ? ' among the filtered ones' : ''}.`
                    : filtered
                      ? `No ${noun} matches the filters.`
                      : empty}
                </EmptyTableRow>
              )}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>
      {data && data.totalElements > 0 && (
        <Group justify="space-between">
          <Select
            aria-label={`${noun[0]!.toUpperCase()}${noun.slice(1)}s per page`}
            data={PAGE_SIZES}
            value={String(state.pageSize)}
            onChange={(v) => state.setPageSize(Number(v ?? 20))}
            w={90}
            allowDeselect={false}
          />
          <Pagination total={data.totalPages} value={state.page + 1} onChange={(p) => state.setPage(p - 1)} />
        </Group>
      )}
    </Stack>
  );
}

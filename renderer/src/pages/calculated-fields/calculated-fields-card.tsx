/**
 * The "Calculated fields" tab of a device, asset or profile: its fields (ThingsBoard 4.3's seven types),
 * a form to create or edit one (type, name, configuration JSON, the expression or TBEL script in the code
 * editor), a test run on sample arguments, and the debug events of a field's runs.
 */
import {
  Alert,
  Badge,
  Button,
  Checkbox,
  Code,
  Group,
  JsonInput,
  Modal,
  Paper,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useApi } from '../../api/api-context.tsx';
import {
  CF_TYPES,
  testCalculatedField,
  type CalculatedField,
  type CfType,
  type EntityRef,
} from '../../api/calculated-fields-api.ts';
import {
  useCalculatedFieldDebug,
  useCalculatedFields,
  useDeleteCalculatedField,
  useSaveCalculatedField,
} from '../../api/calculated-fields-hooks.ts';
import { EmptyTableRow } from '../../components/empty-table-row.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDateTime } from '../../components/format.ts';
import { ScriptCodeEditor } from '../rule-chains/script-code-editor.tsx';
import { CF_TEMPLATES } from './cf-templates.ts';

const hasExpression = (type: CfType) => type === 'SIMPLE' || type === 'SCRIPT' || type === 'PROPAGATION';

/** Sample arguments for a test run: each argument's name with a value. */
function sampleArguments(configuration: Record<string, unknown>): string {
  const args = (configuration.arguments ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(args)) out[name] = { type: 'SINGLE_VALUE', ts: Date.now(), value: 20 };
  return JSON.stringify(out, null, 2);
}

function FieldForm({
  entity,
  field,
  onClose,
}: {
  entity: EntityRef;
  field: CalculatedField | null;
  onClose(): void;
}) {
  const client = useApi();
  const save = useSaveCalculatedField();
  const [type, setType] = useState<CfType>(field?.type ?? 'SIMPLE');
  const [name, setName] = useState(field?.name ?? '');
  const initial = field?.configuration ?? CF_TEMPLATES.SIMPLE;
  const { expression: initialExpression, ...initialRest } = initial as Record<string, unknown>;
  const [config, setConfig] = useState(JSON.stringify(initialRest, null, 2));
  const [expression, setExpression] = useState(
    typeof initialExpression === 'string' ? initialExpression : '',
  );
  const [debug, setDebug] = useState(field?.debugSettings?.allEnabled ?? true);
  const [samples, setSamples] = useState(() => sampleArguments(initial));
  const [test, setTest] = useState<{ output: string; error: string } | null>(null);
  const [parseError, setParseError] = useState<string | null>(null);

  const configuration = (): Record<string, unknown> | null => {
    try {
      const parsed = JSON.parse(config) as Record<string, unknown>;
      setParseError(null);
      return { ...parsed, ...(hasExpression(type) ? { expression } : {}), type };
    } catch (err) {
      setParseError(`The configuration is not valid JSON: ${(err as Error).message}`);
      return null;
    }
  };
  const pickType = (t: CfType) => {
    setType(t);
    if (field) return;
    const { expression: e, ...rest } = CF_TEMPLATES[t] as Record<string, unknown>;
    setConfig(JSON.stringify(rest, null, 2));
    setExpression(typeof e === 'string' ? e : '');
    setSamples(sampleArguments(CF_TEMPLATES[t]));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const c = configuration();
    if (!c) return;
    save.mutate(
      {
        ...(field?.id ? { id: field.id } : {}),
        entityId: entity,
        type,
        name,
        debugSettings: { allEnabled: debug, failuresEnabled: true },
        configuration: c as CalculatedField['configuration'],
      },
      { onSuccess: onClose },
    );
  };
  const runTest = async () => {
    try {
      setTest(
        await testCalculatedField(client, {
          type: type === 'SIMPLE' ? 'SIMPLE' : undefined,
          expression,
          arguments: JSON.parse(samples) as Record<string, unknown>,
        }),
      );
    } catch (err) {
      setTest({ output: '', error: (err as Error).message });
    }
  };

  return (
    <form onSubmit={submit} data-testid="cf-form">
      <Stack gap="sm">
        <Group grow>
          <TextInput
            label="Name"
            required
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            data-testid="cf-name"
          />
          <Select
            label="Type"
            data={CF_TYPES.map((t) => ({ value: t, label: t }))}
            value={type}
            onChange={(v) => v && pickType(v as CfType)}
            disabled={!!field}
            allowDeselect={false}
            data-testid="cf-type"
          />
        </Group>
        <JsonInput
          label="Configuration (arguments, output, and the type's own settings, as ThingsBoard 4.3 saves them)"
          value={config}
          onChange={setConfig}
          autosize
          minRows={6}
          maxRows={18}
          formatOnBlur
          data-testid="cf-configuration"
        />
        {hasExpression(type) && (
          <ScriptCodeEditor
            label={type === 'SIMPLE' ? 'Expression' : 'Expression (TBEL)'}
            description={
              type === 'SIMPLE'
                ? 'A formula over the argument names: + - * / % ^, parentheses, sqrt, abs, pow, log, sin ...'
                : 'The body of calculate(ctx, arg1, ...): return an object of output keys and values'
            }
            value={expression}
            onChange={setExpression}
            testId="cf-expression"
            lang="TBEL"
          />
        )}
        {hasExpression(type) && (
          <Paper withBorder p="sm">
            <Stack gap="xs">
              <JsonInput
                label="Sample arguments"
                value={samples}
                onChange={setSamples}
                autosize
                minRows={3}
                data-testid="cf-samples"
              />
              <Group>
                <Button variant="light" onClick={() => void runTest()} data-testid="cf-test">
                  Test run
                </Button>
              </Group>
              {test &&
                (test.error ? (
                  <Alert color="red" data-testid="cf-test-error">
                    {test.error}
                  </Alert>
                ) : (
                  <Code block data-testid="cf-test-output">
                    {test.output}
                  </Code>
                ))}
            </Stack>
          </Paper>
        )}
        <Checkbox
          label="Keep debug events of every run"
          checked={debug}
          onChange={(e) => setDebug(e.currentTarget.checked)}
        />
        {parseError && <Alert color="red">{parseError}</Alert>}
        <ErrorAlert error={save.error} title="Could not save the calculated field" />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={save.isPending} data-testid="cf-save">
            Save
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function DebugEvents({ field, onClose }: { field: CalculatedField; onClose(): void }) {
  const events = useCalculatedFieldDebug(field.id!.id);
  return (
    <Modal opened onClose={onClose} title={`Debug events: ${field.name}`} size="xl">
      <ErrorAlert error={events.error} />
      <Table striped data-testid="cf-debug-events">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Time</Table.Th>
            <Table.Th>Arguments</Table.Th>
            <Table.Th>Result</Table.Th>
            <Table.Th>Error</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {(events.data ?? []).map((e) => (
            <Table.Tr key={e.id.id}>
              <Table.Td>{formatDateTime(e.createdTime)}</Table.Td>
              <Table.Td>
                <Code>{e.body.arguments}</Code>
              </Table.Td>
              <Table.Td>
                <Code>{e.body.result ?? ''}</Code>
              </Table.Td>
              <Table.Td>{e.body.error ?? ''}</Table.Td>
            </Table.Tr>
          ))}
          {events.data?.length === 0 && (
            <EmptyTableRow columns={4}>No runs yet (debug events are kept when enabled)</EmptyTableRow>
          )}
        </Table.Tbody>
      </Table>
    </Modal>
  );
}

export function CalculatedFieldsCard({ entity, canEdit = true }: { entity: EntityRef; canEdit?: boolean }) {
  const list = useCalculatedFields(entity);
  const remove = useDeleteCalculatedField();
  const [editing, setEditing] = useState<CalculatedField | 'new' | null>(null);
  const [debugging, setDebugging] = useState<CalculatedField | null>(null);
  return (
    <Paper withBorder p="md" data-testid="calculated-fields">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={4}>Calculated fields</Title>
          {canEdit && (
            <Button size="xs" onClick={() => setEditing('new')} data-testid="cf-add">
              Add calculated field
            </Button>
          )}
        </Group>
        <Text size="sm" c="dimmed">
          Computed when an argument's telemetry or attribute changes; results enter the rule engine as this
          entity's telemetry or attributes (ThingsBoard 4.3's calculated fields; ALARM fields raise alarms).
        </Text>
        <ErrorAlert error={list.error ?? remove.error} />
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Type</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(list.data?.data ?? []).map((f) => (
              <Table.Tr key={f.id!.id} data-testid="cf-row">
                <Table.Td>{f.name}</Table.Td>
                <Table.Td>
                  <Badge variant="light">{f.type}</Badge>
                </Table.Td>
                <Table.Td>{f.createdTime ? formatDateTime(f.createdTime) : ''}</Table.Td>
                <Table.Td>
                  <Group gap="xs" justify="flex-end">
                    <Button size="xs" variant="subtle" onClick={() => setDebugging(f)}>
                      Debug events
                    </Button>
                    {canEdit && (
                      <Button size="xs" variant="subtle" onClick={() => setEditing(f)}>
                        Edit
                      </Button>
                    )}
                    {canEdit && (
                      <Button size="xs" variant="subtle" color="red" onClick={() => remove.mutate(f.id!.id)}>
                        Delete
                      </Button>
                    )}
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
            {list.data?.data.length === 0 && <EmptyTableRow columns={4}>No calculated fields</EmptyTableRow>}
          </Table.Tbody>
        </Table>
      </Stack>
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing === 'new' ? 'New calculated field' : 'Edit calculated field'}
        size="xl"
      >
        {editing !== null && (
          <FieldForm
            entity={entity}
            field={editing === 'new' ? null : editing}
            onClose={() => setEditing(null)}
          />
        )}
      </Modal>
      {debugging && <DebugEvents field={debugging} onClose={() => setDebugging(null)} />}
    </Paper>
  );
}

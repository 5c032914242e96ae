import '../../components/typebox-csp.ts';
import {
  Badge,
  Button,
  Card,
  Fieldset,
  Group,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Textarea,
} from '@mantine/core';
import { useMemo } from 'react';
import { DEFAULT_DEVICE_NAME_PATTERN, scenarioIssues } from '../../../../shared/schemas/simulation.ts';
import type { SimulationDetails } from '../../api/client.ts';
import { useUpdateSimulation } from '../../api/hooks.ts';
import {
  issuesByPath,
  NumberField,
  SelectField,
  TextField,
  type Binder,
} from '../../components/bound-fields.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { DraftJsonText, DraftProblems, DraftViewSwitch, useJsonDraft } from '../../components/json-draft.tsx';
import { getAt, parsePath, setAt } from '../../components/json-path.ts';
import { ScriptCodeEditor } from '../rule-chains/script-code-editor.tsx';
import { OtaFields } from './scenario-ota-fields.tsx';
import { HOOK_EXAMPLES } from './script-hooks.ts';

const NEW_GATEWAY = {
  name: 'New Gateway',
  periodMs: 1000,
  devicesCount: 1,
  keys: [{ key: 'value', generator: { kind: 'random', min: 0, max: 100 } }],
};

/** The script of a gateway's devices in the code editor, with an example of each hook to insert. */
function DeviceScriptField({ b, path }: { b: Binder; path: string }) {
  const value = b.value(path);
  const script = typeof value === 'string' ? value : '';
  const insert = (code: string) =>
    b.set(path, script.trim() === '' ? code : `${script.trimEnd()}\n\n${code}`);
  if (value === undefined)
    return (
      <Group gap="xs">
        <Button
          size="compact-xs"
          variant="light"
          disabled={b.disabled}
          onClick={() => insert(HOOK_EXAMPLES[0].code)}
          data-testid="add-device-script"
        >
          Add a device script
        </Button>
        <Text size="xs" c="dimmed">
          JavaScript in the QuickJS sandbox: what each device publishes, how it answers RPC and follows shared
          attributes.
        </Text>
      </Group>
    );
  const error = b.error(path);
  return (
    <Stack gap={4}>
      <ScriptCodeEditor
        label="Device script"
        description="Hooks onTick(ctx), onRpc(method, params, ctx), onAttributes(shared, ctx); ctx.state is kept per device. Errors show in the run's Script errors with the device and the line."
        value={script}
        onChange={(v) => b.set(path, v)}
        testId="device-script"
        lang="JS"
      />
      {error && (
        <Text size="xs" c="red">
          {error}
        </Text>
      )}
      <Group gap="xs">
        <Text size="xs" c="dimmed">
          Insert an example:
        </Text>
        {HOOK_EXAMPLES.map((h) => (
          <Button
            key={h.hook}
            size="compact-xs"
            variant="default"
            disabled={b.disabled}
            onClick={() => insert(h.code)}
            title={h.label}
            data-testid={`insert-${h.hook}`}
          >
            {h.hook}
          </Button>
        ))}
        <Button
          size="compact-xs"
          variant="subtle"
          color="red"
          disabled={b.disabled}
          onClick={() => b.set(path, undefined)}
        >
          Remove script
        </Button>
      </Group>
    </Stack>
  );
}

/** One gateway's common fields; its keys, RPC responders and attributes are edited in the JSON view. */
function GatewayFields({ b, index, onRemove }: { b: Binder; index: number; onRemove?: () => void }) {
  const p = `gateways[${index}]`;
  const keys = b.value(`${p}.keys`);
  const rpc = b.value(`${p}.rpc`);
  return (
    <Fieldset
      legend={
        <Group gap="xs">
          <Text size="sm" fw={600}>
            {String(b.value(`${p}.name`) ?? `Gateway ${index + 1}`)}
          </Text>
          <Text size="xs" c="dimmed" ff="monospace">
            {p}
          </Text>
        </Group>
      }
    >
      <Stack gap="xs">
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
          <TextField b={b} path={`${p}.name`} label="Name" />
          <TextField
            b={b}
            path={`${p}.token`}
            label="Access token"
            optional
            placeholder="found or created by name"
          />
          <SelectField
            b={b}
            path={`${p}.protocolVersion`}
            label="MQTT version"
            data={[
              { value: '5', label: 'MQTT 5' },
              { value: '4', label: 'MQTT 3.1.1' },
            ]}
          />
          <SelectField
            b={b}
            path={`${p}.qos`}
            label="QoS"
            data={[
              { value: '1', label: '1 (acknowledged)' },
              { value: '0', label: '0 (fire and forget)' },
            ]}
          />
          <NumberField b={b} path={`${p}.periodMs`} label="Period (ms)" min={10} placeholder="1000" />
          <NumberField b={b} path={`${p}.devicesCount`} label="Devices" min={0} />
          <TextField
            b={b}
            path={`${p}.deviceNamePattern`}
            label="Device names"
            optional
            placeholder={DEFAULT_DEVICE_NAME_PATTERN}
          />
          <TextField b={b} path={`${p}.deviceType`} label="Device profile" optional placeholder="default" />
        </SimpleGrid>
        <DeviceScriptField b={b} path={`${p}.script`} />
        <Group justify="space-between" align="flex-end">
          <Group gap={6}>
            <Text size="xs" c="dimmed">
              Keys:
            </Text>
            {Array.isArray(keys) && keys.length > 0 ? (
              keys.map((k, i) => (
                <Badge key={i} variant="outline" size="sm" tt="none">
                  {String((k as { key?: unknown }).key ?? '?')} ·{' '}
                  {String((k as { generator?: { kind?: unknown } }).generator?.kind ?? '?')}
                </Badge>
              ))
            ) : (
              <Text size="xs">none</Text>
            )}
            <Text size="xs" c="dimmed" ml="sm">
              RPC rules: {Array.isArray(rpc) ? rpc.length : 0}
            </Text>
          </Group>
          {onRemove && (
            <Button size="compact-xs" variant="subtle" color="red" onClick={onRemove} disabled={b.disabled}>
              Remove gateway
            </Button>
          )}
        </Group>
      </Stack>
    </Fieldset>
  );
}

/**
 * A scenario's editor: a form for the common fields and the whole scenario as JSON; problems are shown
 * inline, each naming its JSON path (the simulator's own validation, run here as you type).
 */
export function ScenarioEditor({ simulation, locked }: { simulation: SimulationDetails; locked: boolean }) {
  const update = useUpdateSimulation(simulation.id);
  const d = useJsonDraft(simulation.scenario);
  const { draft, dirty } = d;
  const jsonError = d.textError;

  const issues = useMemo(() => scenarioIssues(draft), [draft]);
  const byPath = useMemo(() => issuesByPath(issues), [issues]);

  const b: Binder = {
    value: (path) => getAt(draft, parsePath(path)),
    error: (path) => byPath.get(path),
    set: (path, value) => d.replace(setAt(draft, parsePath(path), value)),
    disabled: locked,
  };
  const gateways = b.value('gateways');
  const target = b.value('target.kind') ?? 'embedded';

  const discard = () => {
    d.replace(simulation.scenario);
    update.reset();
  };
  const save = () => update.mutate(draft, { onSuccess: (details) => d.replace(details.scenario) });

  return (
    <Card withBorder radius="md" p="md" data-testid="scenario-editor">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <DraftViewSwitch d={d} label="Editor view" testId="scenario-view" />
          <Group gap="xs">
            {dirty && (
              <Text size="xs" c="dimmed">
                Unsaved changes
              </Text>
            )}
            <Button variant="default" size="xs" onClick={discard} disabled={!dirty || update.isPending}>
              Discard
            </Button>
            <Button
              size="xs"
              onClick={save}
              loading={update.isPending}
              disabled={locked || !dirty || issues.length > 0 || jsonError !== null}
              data-testid="save-scenario"
            >
              Save scenario
            </Button>
          </Group>
        </Group>
        {locked && (
          <Text size="sm" c="dimmed">
            Stop the simulation to change its scenario.
          </Text>
        )}
        <ErrorAlert error={update.error} title="Could not save the scenario" />
        <DraftProblems d={d} issues={issues} testId="scenario" whole="(scenario)" />

        {d.view === 'form' ? (
          <Stack gap="sm">
            <SimpleGrid cols={{ base: 1, md: 2 }}>
              <TextField b={b} path="name" label="Name" />
              <Select
                label="Target"
                data={[
                  { value: 'embedded', label: "This Sandboard's MQTT broker" },
                  { value: 'remote', label: 'A remote ThingsBoard (MQTT host)' },
                ]}
                value={String(target)}
                allowDeselect={false}
                onChange={(v) =>
                  b.set(
                    'target',
                    v === 'remote' ? { kind: 'remote', host: 'localhost', port: 1883 } : { kind: 'embedded' },
                  )
                }
                disabled={locked}
                error={b.error('target')}
              />
            </SimpleGrid>
            {target === 'remote' && (
              <SimpleGrid cols={{ base: 1, md: 3 }}>
                <TextField b={b} path="target.host" label="Host" />
                <NumberField b={b} path="target.port" label="Port" min={1} />
                <Switch
                  mt="lg"
                  label="TLS"
                  checked={b.value('target.tls') === true}
                  onChange={(e) => b.set('target.tls', e.currentTarget.checked || undefined)}
                  disabled={locked}
                />
              </SimpleGrid>
            )}
            <Textarea
              label="Description"
              autosize
              minRows={1}
              maxRows={4}
              value={String(b.value('description') ?? '')}
              onChange={(e) =>
                b.set('description', e.currentTarget.value === '' ? undefined : e.currentTarget.value)
              }
              error={b.error('description')}
              disabled={locked}
            />
            <SimpleGrid cols={{ base: 1, md: 2 }}>
              <NumberField
                b={b}
                path="durationMs"
                label="Stop after (seconds)"
                description="Empty: run until stopped (saved as durationMs)"
                min={1}
                allowDecimal
                scale={1000}
              />
              <NumberField
                b={b}
                path="messages"
                label="Messages per gateway"
                description="Empty: no limit"
                min={1}
              />
              <NumberField
                b={b}
                path="workers"
                label="Worker threads"
                description="Gateways spread over threads; 0: none; empty: one per core from 2,000 devices"
                min={0}
              />
            </SimpleGrid>
            {Array.isArray(gateways) &&
              gateways.map((_, i) => (
                <GatewayFields
                  key={i}
                  b={b}
                  index={i}
                  onRemove={
                    gateways.length > 1
                      ? () =>
                          b.set(
                            'gateways',
                            gateways.filter((__, j) => j !== i),
                          )
                      : undefined
                  }
                />
              ))}
            <Group justify="space-between">
              <Button
                variant="light"
                size="xs"
                disabled={locked || !Array.isArray(gateways)}
                onClick={() =>
                  Array.isArray(gateways) &&
                  b.set('gateways', [...gateways, { ...NEW_GATEWAY, name: `Gateway ${gateways.length + 1}` }])
                }
              >
                Add gateway
              </Button>
              <Text size="xs" c="dimmed">
                Keys and their generators, RPC responders, attributes, the seed and faults: in the JSON view.
              </Text>
            </Group>
            {target !== 'remote' && <OtaFields b={b} />}
          </Stack>
        ) : (
          <DraftJsonText d={d} label="Scenario JSON" readOnly={locked} minRows={16} testId="scenario-json" />
        )}
      </Stack>
    </Card>
  );
}

import {
  ActionIcon,
  Button,
  Checkbox,
  Group,
  Modal,
  MultiSelect,
  Select,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useApi } from '../../api/api-context.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { resolveAlias } from './aliases.ts';
import type { DataKey, Dashboard, EntityAlias, Widget } from './dashboard-model.ts';
import { widgetFqn } from './dashboard-model.ts';
import { widgetKind } from './widget-kinds.ts';

type AvailableKeys = { timeseries: string[]; attribute: string[] };

/** The keys the alias's entities have (POST /api/entitiesQuery/find/keys). */
function useAliasKeys(alias: EntityAlias | undefined) {
  const client = useApi();
  return useQuery({
    queryKey: ['dashboards', 'alias-keys', alias?.filter],
    enabled: !!alias,
    queryFn: async (): Promise<AvailableKeys> => {
      const resolved = resolveAlias(alias!, {});
      if (resolved instanceof Error) return { timeseries: [], attribute: [] };
      return client.request('POST', '/api/entitiesQuery/find/keys', {
        query: { timeseries: true, attributes: true },
        body: { entityFilter: resolved.filter, pageLink: { page: 0, pageSize: 100 } },
      });
    },
  });
}

/** A new alias from the editor: one device, or every device of a type. */
function NewAlias({ onAdd }: { onAdd: (a: EntityAlias) => void }) {
  const client = useApi();
  const [kind, setKind] = useState<'device' | 'deviceType'>('deviceType');
  const [value, setValue] = useState<string | null>(null);
  const types = useQuery({ queryKey: ['dashboards', 'device-types'], queryFn: () => client.deviceTypes() });
  const devices = useQuery({
    queryKey: ['dashboards', 'devices-for-alias'],
    queryFn: () => client.devices({ page: 0, pageSize: 100, sortProperty: 'name', sortOrder: 'ASC' }),
  });
  const options =
    kind === 'deviceType'
      ? (types.data ?? []).map((t) => ({ value: t.type, label: t.type }))
      : (devices.data?.data ?? []).map((d) => ({ value: d.id.id, label: d.name }));
  const add = () => {
    if (!value) return;
    const id = crypto.randomUUID();
    const label = options.find((o) => o.value === value)?.label ?? value;
    onAdd(
      kind === 'deviceType'
        ? {
            id,
            alias: `${label} devices`,
            filter: { type: 'deviceType', resolveMultiple: true, deviceTypes: [value], deviceNameFilter: '' },
          }
        : {
            id,
            alias: label,
            filter: {
              type: 'singleEntity',
              resolveMultiple: false,
              singleEntity: { entityType: 'DEVICE', id: value },
            },
          },
    );
    setValue(null);
  };
  return (
    <Group align="flex-end" gap="xs" wrap="nowrap">
      <Select
        label="New alias"
        data={[
          { value: 'deviceType', label: 'Devices of a type' },
          { value: 'device', label: 'One device' },
        ]}
        value={kind}
        onChange={(v) => {
          setKind((v as typeof kind) ?? 'deviceType');
          setValue(null);
        }}
        allowDeselect={false}
        w={170}
      />
      <Select
        data={options}
        value={value}
        onChange={setValue}
        searchable
        placeholder={kind === 'deviceType' ? 'Device type' : 'Device'}
        aria-label="Alias entity"
        style={{ flex: 1 }}
      />
      <Button variant="default" onClick={add} disabled={!value} data-testid="add-alias">
        Add
      </Button>
    </Group>
  );
}

/**
 * Edits a widget's title, its datasource (an entity alias, with a new one made here if needed), its data
 * keys (picked from the keys the alias's entities have) and each key's post-processing function.
 */
export function WidgetEditor({
  dashboard,
  widget,
  onSave,
  onClose,
}: {
  dashboard: Dashboard;
  widget: Widget | null;
  onSave: (w: Widget, newAliases: EntityAlias[]) => void;
  onClose: () => void;
}) {
  const [draft, setDraft] = useState<Widget | null>(widget);
  const [aliases, setAliases] = useState<EntityAlias[]>([]);
  useEffect(() => {
    setDraft(widget);
    setAliases([]);
  }, [widget]);
  const allAliases = {
    ...dashboard.configuration.entityAliases,
    ...Object.fromEntries(aliases.map((a) => [a.id, a])),
  };
  const kind = draft ? widgetKind(widgetFqn(draft)) : undefined;
  const rpc = kind?.type === 'rpc';
  const ds = draft?.config.datasources?.[0];
  const aliasId = rpc
    ? (draft?.config.targetDevice?.entityAliasId ?? draft?.config.targetDeviceAliasIds?.[0])
    : ds?.entityAliasId;
  const alias = aliasId ? allAliases[aliasId] : undefined;
  const keys = useAliasKeys(alias);
  if (!draft) return null;
  const config = draft.config;
  const dataKeys: DataKey[] = ds?.dataKeys ?? [];
  const setConfig = (c: Partial<Widget['config']>) => setDraft({ ...draft, config: { ...config, ...c } });
  const setAlias = (id: string | null) => {
    if (rpc)
      setConfig({
        targetDevice: id ? { type: 'entity', entityAliasId: id } : undefined,
        targetDeviceAliasIds: id ? [id] : [],
      });
    else setConfig({ datasources: [{ type: 'entity', entityAliasId: id ?? undefined, dataKeys }] });
  };
  const setKeys = (next: DataKey[]) =>
    setConfig({ datasources: [{ type: 'entity', entityAliasId: aliasId, dataKeys: next }] });
  const keyOptions = [
    {
      group: 'Time series',
      items: (keys.data?.timeseries ?? []).map((k) => ({ value: `timeseries:${k}`, label: k })),
    },
    {
      group: 'Attributes',
      items: (keys.data?.attribute ?? []).map((k) => ({ value: `attribute:${k}`, label: k })),
    },
  ];
  const selected = dataKeys.map((k) => `${k.type}:${k.name}`);
  for (const k of dataKeys) {
    const group = k.type === 'attribute' ? keyOptions[1]! : keyOptions[0]!;
    if (!group.items.some((i) => i.value === `${k.type}:${k.name}`))
      group.items.push({ value: `${k.type}:${k.name}`, label: k.name });
  }
  return (
    <Modal
      opened
      onClose={onClose}
      title={`Edit widget: ${kind?.name ?? widgetFqn(draft)}`}
      size="lg"
      centered
    >
      <Stack gap="sm">
        <TextInput
          label="Title"
          value={config.title ?? ''}
          onChange={(e) => setConfig({ title: e.currentTarget.value })}
          data-testid="widget-title"
          data-autofocus
        />
        <Switch
          label="Show the title"
          checked={config.showTitle !== false}
          onChange={(e) => setConfig({ showTitle: e.currentTarget.checked })}
        />
        {kind?.type !== 'static' && (
          <>
            <Select
              label={rpc ? 'Target device (alias)' : 'Entity alias'}
              data={Object.values(allAliases).map((a) => ({ value: a.id, label: a.alias }))}
              value={aliasId ?? null}
              onChange={setAlias}
              data-testid="widget-alias"
            />
            <NewAlias
              onAdd={(a) => {
                setAliases((list) => [...list, a]);
                setAlias(a.id);
              }}
            />
          </>
        )}
        {!rpc && kind?.type !== 'static' && kind?.type !== 'alarm' && (
          <MultiSelect
            label="Data keys"
            description={
              keys.isFetching
                ? 'Looking up the keys of the alias’s entities…'
                : 'The keys of the alias’s entities; a key can be typed too'
            }
            data={keyOptions}
            value={selected}
            searchable
            onChange={(values) =>
              setKeys(
                values.map((v) => {
                  const [type, ...rest] = v.split(':');
                  const name = rest.join(':');
                  return (
                    dataKeys.find((k) => k.type === type && k.name === name) ?? {
                      name,
                      type: type as DataKey['type'],
                      label: name,
                    }
                  );
                }),
              )
            }
            data-testid="widget-keys"
          />
        )}
        {dataKeys.map((k, i) => (
          <Stack key={`${k.type}:${k.name}`} gap={4}>
            <Group gap="xs" wrap="nowrap" align="flex-end">
              <TextInput
                label={`${k.name} label`}
                value={k.label ?? ''}
                size="xs"
                onChange={(e) =>
                  setKeys(dataKeys.map((x, j) => (j === i ? { ...x, label: e.currentTarget.value } : x)))
                }
              />
              <TextInput
                label="Units"
                value={k.units ?? ''}
                size="xs"
                w={80}
                onChange={(e) =>
                  setKeys(dataKeys.map((x, j) => (j === i ? { ...x, units: e.currentTarget.value } : x)))
                }
              />
              <Checkbox
                label="Post-processing"
                checked={!!k.usePostProcessing}
                onChange={(e) =>
                  setKeys(
                    dataKeys.map((x, j) =>
                      j === i
                        ? {
                            ...x,
                            usePostProcessing: e.currentTarget.checked,
                            postFuncBody: x.postFuncBody ?? 'return value;',
                          }
                        : x,
                    ),
                  )
                }
                mb={6}
              />
              <ActionIcon
                variant="subtle"
                color="red"
                aria-label={`Remove ${k.name}`}
                onClick={() => setKeys(dataKeys.filter((_, j) => j !== i))}
                mb={4}
              >
                ✕
              </ActionIcon>
            </Group>
            {k.usePostProcessing && (
              <Textarea
                ff="monospace"
                size="xs"
                autosize
                minRows={2}
                label="function (time, value, prevValue, timePrev, prevOrigValue) — runs in the server's sandbox"
                value={k.postFuncBody ?? ''}
                onChange={(e) =>
                  setKeys(
                    dataKeys.map((x, j) => (j === i ? { ...x, postFuncBody: e.currentTarget.value } : x)),
                  )
                }
              />
            )}
          </Stack>
        ))}
        {rpc && (
          <Text size="xs" c="dimmed">
            The control sends its RPC method as set in the widget’s settings (ThingsBoard’s onUpdateState /
            setValueMethod).
          </Text>
        )}
        <ErrorAlert error={keys.error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={() => onSave(draft, aliases)} data-testid="apply-widget">
            Apply
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

import { Button, Group, NumberInput, ScrollArea, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useApi } from '../../../api/api-context.tsx';
import { useDashboard, useWidgetData } from '../dashboard-context.tsx';
import type { Widget } from '../dashboard-model.ts';
import { keyLabel, setting } from './widget-format.ts';
import { WidgetMessage } from './widget-message.tsx';

type Scope = 'SERVER_SCOPE' | 'SHARED_SCOPE';

/** The update-attributes form: a field per attribute key of the first entity, saved with one POST. */
export function AttributesForm({ widget }: { widget: Widget }) {
  const { data } = useWidgetData(widget, 'latest');
  const client = useApi();
  const ctx = useDashboard();
  const [draft, setDraft] = useState<Record<string, unknown>>({});
  const [status, setStatus] = useState<{ text: string; error?: boolean } | null>(null);
  const [saving, setSaving] = useState(false);
  const ds = data.find((d) => d.rows.length > 0) ?? data[0];
  if (ds?.error) return <WidgetMessage text={ds.error} tone="error" />;
  const row = ds?.rows[0];
  if (!row) return <WidgetMessage text={ds?.loaded ? 'No entity to update' : 'Loading…'} />;
  const keys = (ds?.keys ?? []).filter((k) => k.type === 'attribute' || k.type === 'timeseries');
  const scope: Scope =
    setting<string>(widget, 'attributesScope', 'SERVER_SCOPE') === 'SHARED_SCOPE'
      ? 'SHARED_SCOPE'
      : 'SERVER_SCOPE';
  const valueOf = (name: string) => (name in draft ? draft[name] : row.latest[name]?.value);
  const save = async () => {
    setSaving(true);
    try {
      const attrs = Object.fromEntries(
        keys.filter((k) => k.type === 'attribute' && k.name in draft).map((k) => [k.name, draft[k.name]]),
      );
      if (Object.keys(attrs).length > 0)
        await client.saveAttributes(row.entityId.id, scope, attrs, row.entityId.entityType);
      setDraft({});
      setStatus({ text: `Saved ${Object.keys(attrs).length} attribute(s) to ${row.label || row.name}` });
    } catch (err) {
      setStatus({ text: (err as Error).message, error: true });
    } finally {
      setSaving(false);
    }
  };
  return (
    <Stack h="100%" gap="xs" p={4} data-testid="attributes-form">
      <ScrollArea style={{ flex: 1 }}>
        <Stack gap={6}>
          {keys.map((k) => {
            const v = valueOf(k.name);
            const readOnly = k.type !== 'attribute' || !ctx.interactive;
            const set = (x: unknown) => setDraft((d) => ({ ...d, [k.name]: x }));
            const kind = String(
              k.settings?.dataKeyValueType ??
                (typeof v === 'boolean' ? 'booleanSwitch' : typeof v === 'number' ? 'double' : 'string'),
            );
            if (kind.startsWith('boolean'))
              return (
                <Switch
                  key={k.name}
                  label={keyLabel(k)}
                  checked={v === true}
                  disabled={readOnly}
                  onChange={(e) => set(e.currentTarget.checked)}
                />
              );
            if (kind === 'double' || kind === 'integer')
              return (
                <NumberInput
                  key={k.name}
                  size="xs"
                  label={keyLabel(k)}
                  value={typeof v === 'number' ? v : ''}
                  disabled={readOnly}
                  onChange={(x) => set(typeof x === 'number' ? x : Number(x))}
                />
              );
            return (
              <TextInput
                key={k.name}
                size="xs"
                label={keyLabel(k)}
                value={v === undefined ? '' : String(v)}
                disabled={readOnly}
                onChange={(e) => set(e.currentTarget.value)}
              />
            );
          })}
        </Stack>
      </ScrollArea>
      <Group justify="space-between" wrap="nowrap">
        <Text size="xs" c={status?.error ? 'red' : 'dimmed'} lineClamp={1}>
          {status?.text ?? ''}
        </Text>
        <Button
          size="xs"
          onClick={() => void save()}
          loading={saving}
          disabled={Object.keys(draft).length === 0 || !ctx.interactive}
        >
          Save
        </Button>
      </Group>
    </Stack>
  );
}

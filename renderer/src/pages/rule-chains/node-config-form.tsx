import {
  Alert,
  MultiSelect,
  NumberInput,
  Select,
  Stack,
  Switch,
  TagsInput,
  Text,
  TextInput,
  Textarea,
} from '@mantine/core';
import { useEffect, useState } from 'react';
import type { TSchema } from 'typebox';
import { fieldsOf, isClosed, type ConfigProblems, type FieldSpec } from './node-config.ts';
import { hasScript, ScriptEditor, scriptKeys } from './script-test-panel.tsx';

type Config = Record<string, unknown>;

function without(config: Config, key: string): Config {
  const next = { ...config };
  delete next[key];
  return next;
}

function Field({
  field,
  value,
  error,
  onChange,
}: {
  field: FieldSpec;
  value: unknown;
  error: string | undefined;
  onChange: (value: unknown) => void;
}) {
  const common = {
    label: field.label,
    description: field.description,
    error,
    required: field.required,
    'data-config-key': field.key,
  };
  switch (field.kind) {
    case 'enum':
      return (
        <Select
          {...common}
          data={field.options ?? []}
          value={typeof value === 'string' ? value : null}
          onChange={(v) => onChange(v ?? undefined)}
          clearable
          placeholder={field.required ? 'Choose one' : 'Not set'}
        />
      );
    case 'enumList':
      return (
        <MultiSelect
          {...common}
          data={field.options ?? []}
          value={Array.isArray(value) ? value.map(String) : []}
          onChange={(v) => onChange(v)}
          clearable
          placeholder={Array.isArray(value) && value.length ? undefined : 'None'}
        />
      );
    case 'stringList':
      return (
        <TagsInput
          {...common}
          value={Array.isArray(value) ? value.map(String) : []}
          onChange={(v) => onChange(v)}
          acceptValueOnBlur
          clearable
          placeholder="Type and press Enter"
        />
      );
    case 'boolean':
      return (
        <Switch
          label={field.label}
          description={field.description}
          error={error}
          checked={value === true}
          onChange={(e) => onChange(e.currentTarget.checked)}
          data-config-key={field.key}
        />
      );
    case 'integer':
    case 'number':
      return (
        <NumberInput
          {...common}
          min={field.min}
          max={field.max}
          allowDecimal={field.kind === 'number'}
          value={typeof value === 'number' ? value : ''}
          onChange={(n) => onChange(typeof n === 'number' ? n : undefined)}
          placeholder="Not set"
        />
      );
    case 'string':
      return (
        <TextInput
          {...common}
          value={typeof value === 'string' ? value : ''}
          onChange={(e) => onChange(e.currentTarget.value === '' ? undefined : e.currentTarget.value)}
          placeholder="Not set"
        />
      );
    default:
      return (
        <TextInput
          {...common}
          value={value === undefined ? '' : JSON.stringify(value)}
          onChange={(e) => {
            try {
              onChange(e.currentTarget.value === '' ? undefined : JSON.parse(e.currentTarget.value));
            } catch {
              /* keeps the last valid value */
            }
          }}
          placeholder="JSON"
        />
      );
  }
}

/** The configuration as JSON, for what the form has no field for; applied as soon as it parses. */
function ConfigJson({ config, onChange }: { config: Config; onChange: (config: Config) => void }) {
  const text = JSON.stringify(config, null, 2);
  const [draft, setDraft] = useState(text);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setDraft((d) => {
      try {
        if (JSON.stringify(JSON.parse(d)) === JSON.stringify(config)) return d;
      } catch {
        /* replaced below */
      }
      return text;
    });
    setError(null);
    // follows edits made in the form
  }, [text]);
  return (
    <Textarea
      label="Configuration (JSON)"
      autosize
      minRows={2}
      maxRows={10}
      value={draft}
      spellCheck={false}
      error={error}
      styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 12 } }}
      onChange={(e) => {
        const value = e.currentTarget.value;
        setDraft(value);
        try {
          const parsed = JSON.parse(value) as unknown;
          if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
            setError('must be a JSON object');
            return;
          }
          setError(null);
          onChange(parsed as Config);
        } catch (err) {
          setError(`Not JSON: ${(err as Error).message}`);
        }
      }}
      data-testid="node-config-json"
    />
  );
}

/** A node's configuration form, generated from its type's schema, with problems shown inline. */
export function NodeConfigForm({
  nodeType,
  schema,
  config,
  problems,
  onChange,
}: {
  nodeType?: string;
  schema: TSchema | undefined;
  config: Config;
  problems: ConfigProblems;
  onChange: (config: Config) => void;
}) {
  const script = nodeType !== undefined && hasScript(nodeType);
  const hidden = nodeType ? scriptKeys(nodeType) : [];
  const fields = (schema ? fieldsOf(schema) : []).filter((f) => !hidden.includes(f.key));
  return (
    <Stack gap="xs" data-testid="node-config-form">
      {fields.map((f) => (
        <Field
          key={f.key}
          field={f}
          value={config[f.key]}
          error={problems.fields[f.key]}
          onChange={(v) => onChange(v === undefined ? without(config, f.key) : { ...config, [f.key]: v })}
        />
      ))}
      {script && <ScriptEditor nodeType={nodeType} config={config} onChange={onChange} />}
      {!schema && (
        <Text size="xs" c="dimmed">
          No form for this node type: edit its configuration as JSON.
        </Text>
      )}
      {problems.general.length > 0 && (
        <Alert color="red" variant="light" p="xs" data-testid="node-config-general-error">
          {problems.general.map((p) => (
            <Text size="sm" key={p}>
              {p}
            </Text>
          ))}
        </Alert>
      )}
      <ConfigJson config={config} onChange={onChange} />
      {schema && isClosed(schema) && (
        <Text size="xs" c="dimmed">
          This node takes no other properties than the ones above.
        </Text>
      )}
    </Stack>
  );
}

import {
  ActionIcon,
  Alert,
  Anchor,
  Badge,
  Button,
  Divider,
  Group,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import type { NodeConnection, RuleNodeJson } from '../../../../shared/rule-engine.ts';
import type { RuleNodeType } from '../../api/client.ts';
import { relationProblem, shortType, type ChainDraft } from './chain-model.ts';
import { NodeConfigForm } from './node-config-form.tsx';
import { configSchema, type ConfigProblems } from './node-config.ts';
import { NodeDebugEvents } from './node-debug-events.tsx';
import { NodeDebugSettings } from './node-debug-settings.tsx';
import { debugState } from './node-debug-state.ts';
import { RelationPicker, useNodeRelations } from './relation-input.tsx';

/** One connection of the node: its relation type, the node at its other end ("from X" / "to Y") and a remove button. */
function ConnectionRow({ type, peer, onRemove }: { type: string; peer: string; onRemove: () => void }) {
  return (
    <Table.Tr>
      <Table.Td>
        <Text size="xs">{peer}</Text>
      </Table.Td>
      <Table.Td>
        <Badge size="xs" variant="light" tt="none">
          {type}
        </Badge>
      </Table.Td>
      <Table.Td ta="right">
        <ActionIcon
          size="sm"
          variant="subtle"
          color="red"
          onClick={onRemove}
          aria-label={`Remove ${type} ${peer}`}
        >
          ×
        </ActionIcon>
      </Table.Td>
    </Table.Tr>
  );
}

/** Adds a connection from this node: relations it emits (or, for nodes that name them, typed), to a node. */
function AddConnection({
  draft,
  index,
  type,
  onAdd,
}: {
  draft: ChainDraft;
  index: number;
  type: RuleNodeType | undefined;
  onAdd: (c: NodeConnection) => void;
}) {
  const { relations, free } = useNodeRelations(draft.nodes[index], type);
  const [value, setValue] = useState<string[]>(relations[0] ? [relations[0]] : []);
  const [target, setTarget] = useState<string | null>(null);
  const [tried, setTried] = useState(false);
  const targets = draft.nodes
    .map((n, i) => ({ value: String(i), label: n.name }))
    .filter((t) => Number(t.value) !== index);
  const taken =
    target === null
      ? []
      : draft.connections
          .filter((c) => c.fromIndex === index && c.toIndex === Number(target))
          .map((c) => c.type);
  const problem = target === null ? 'Choose the node to connect to' : relationProblem(value, relations, free);
  const submit = () => {
    setTried(true);
    if (problem || target === null) return;
    for (const r of value)
      if (!taken.includes(r)) onAdd({ fromIndex: index, toIndex: Number(target), type: r });
    setTarget(null);
    setTried(false);
  };
  return (
    <Stack gap="xs" data-testid="add-connection">
      <Select
        label="Connect to"
        data={targets}
        value={target}
        onChange={setTarget}
        placeholder="Choose a node"
        searchable
        error={tried && target === null ? 'Choose the node to connect to' : undefined}
        data-testid="connection-target"
      />
      <RelationPicker
        value={value}
        onChange={setValue}
        relations={relations}
        free={free}
        taken={taken}
        onSubmit={submit}
        error={tried && target !== null ? problem : null}
      />
      <Group justify="flex-end">
        <Button variant="light" onClick={submit} data-testid="connect-nodes">
          Connect
        </Button>
      </Group>
    </Stack>
  );
}

/** What the node type does, in ThingsBoard's words, with a link to its documentation page. */
function NodeDoc({ type }: { type: RuleNodeType }) {
  if (!type.description && !type.docUrl) return null;
  return (
    <Text size="xs" c="dimmed" data-testid="node-doc">
      {type.description}
      {type.details && type.details !== type.description ? ` ${type.details}` : ''}
      {type.docUrl && (
        <>
          {' '}
          <Anchor href={type.docUrl} target="_blank" rel="noreferrer" size="xs">
            ThingsBoard docs
          </Anchor>
        </>
      )}
    </Text>
  );
}

/** The selected node: name, debug settings, generated configuration form, connections, debug events. */
export function NodePanel({
  draft,
  index,
  saved,
  type,
  problems,
  serverError,
  onRename,
  onDebug,
  onConfig,
  onSetFirst,
  onRemove,
  onAddConnection,
  onRemoveConnection,
  onFollow,
}: {
  draft: ChainDraft;
  index: number;
  /** the node as last saved (its id, its debug settings): undefined for a node not saved yet */
  saved: RuleNodeJson | undefined;
  type: RuleNodeType | undefined;
  problems: ConfigProblems;
  serverError: string | undefined;
  onRename: (name: string) => void;
  onDebug: (patch: Pick<RuleNodeJson, 'debugMode' | 'debugSettings'>) => void;
  onConfig: (config: Record<string, unknown>) => void;
  onSetFirst: () => void;
  onRemove: () => void;
  onAddConnection: (c: NodeConnection) => void;
  onRemoveConnection: (c: NodeConnection) => void;
  onFollow: (traceId: string) => void;
}) {
  const node = draft.nodes[index]!;
  const name = (i: number) => draft.nodes[i]?.name ?? `#${i}`;
  const outgoing = draft.connections.filter((c) => c.fromIndex === index);
  const incoming = draft.connections.filter((c) => c.toIndex === index && c.fromIndex !== index);
  const isFirst = draft.firstNodeIndex === index;
  const savedId = saved?.id?.id;
  const recording = saved ? debugState(saved, Date.now()).all : false;
  const emits = (type?.relations.length ?? 0) > 0 || type?.customRelations === true || !type;
  return (
    <Stack gap="sm" data-testid="node-panel" data-node={node.name}>
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <div>
          <Title order={3} size="h5">
            {type?.label ?? `Unsupported: ${shortType(node.type)}`}
          </Title>
          <Text size="xs" c="dimmed" ff="monospace" style={{ wordBreak: 'break-all' }}>
            nodes[{index}] · {shortType(node.type)}
          </Text>
        </div>
        {isFirst ? (
          <Badge variant="outline">first node</Badge>
        ) : (
          <Button size="compact-xs" variant="subtle" onClick={onSetFirst}>
            Make first
          </Button>
        )}
      </Group>
      {type && <NodeDoc type={type} />}
      {!type && (
        <Alert
          color="orange"
          variant="light"
          title="Not supported by Sandboard"
          data-testid="node-unsupported"
        >
          <Text size="sm">
            {node.type} is kept as it was imported; every message that reaches it goes to Failure.
          </Text>
        </Alert>
      )}
      {serverError && (
        <Alert
          color="red"
          variant="light"
          title="Refused by the server"
          data-testid="node-server-error"
          role="alert"
        >
          {serverError}
        </Alert>
      )}
      <TextInput
        label="Name"
        required
        value={node.name}
        onChange={(e) => onRename(e.currentTarget.value)}
        error={node.name.trim() === '' ? 'is required' : undefined}
        data-testid="node-name"
      />
      <NodeDebugSettings node={node} onChange={onDebug} />
      <Divider label="Configuration" labelPosition="left" />
      <NodeConfigForm
        nodeType={node.type}
        schema={configSchema(node.type)}
        config={node.configuration}
        problems={problems}
        onChange={onConfig}
      />
      <Divider label="Connections" labelPosition="left" />
      {outgoing.length + incoming.length === 0 ? (
        <Text size="sm" c="dimmed">
          Not connected.
        </Text>
      ) : (
        <Table verticalSpacing={2} data-testid="node-connections">
          <Table.Tbody>
            {incoming.map((c) => (
              <ConnectionRow
                key={`in-${c.fromIndex}-${c.type}`}
                type={c.type}
                peer={`from ${name(c.fromIndex)}`}
                onRemove={() => onRemoveConnection(c)}
              />
            ))}
            {outgoing.map((c) => (
              <ConnectionRow
                key={`out-${c.toIndex}-${c.type}`}
                type={c.type}
                peer={`to ${name(c.toIndex)}`}
                onRemove={() => onRemoveConnection(c)}
              />
            ))}
          </Table.Tbody>
        </Table>
      )}
      {emits && draft.nodes.length > 1 ? (
        <AddConnection draft={draft} index={index} type={type} onAdd={onAddConnection} />
      ) : (
        <Text size="xs" c="dimmed">
          {emits ? 'Add another node to connect to.' : 'This node emits nothing.'}
        </Text>
      )}
      <Divider label="Debug events" labelPosition="left" />
      <NodeDebugEvents nodeId={savedId} recording={recording} onFollow={onFollow} />
      <Group justify="flex-end">
        <Button variant="light" color="red" size="xs" onClick={onRemove} data-testid="remove-node">
          Remove node
        </Button>
      </Group>
    </Stack>
  );
}

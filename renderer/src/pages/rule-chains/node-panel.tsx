import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Card,
  Divider,
  Group,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import type { NodeConnection } from '../../../../shared/rule-engine.ts';
import type { RuleNodeType } from '../../api/client.ts';
import { shortType, type ChainDraft } from './chain-model.ts';
import { NodeConfigForm } from './node-config-form.tsx';
import { configSchema, type ConfigProblems } from './node-config.ts';
import { NodeDebugEvents } from './node-debug-events.tsx';

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

/** Adds a connection from this node: a relation its type emits, to another node. */
function AddConnection({
  draft,
  index,
  relations,
  onAdd,
}: {
  draft: ChainDraft;
  index: number;
  relations: string[];
  onAdd: (c: NodeConnection) => void;
}) {
  const [relation, setRelation] = useState<string | null>(relations[0] ?? null);
  const [target, setTarget] = useState<string | null>(null);
  const targets = draft.nodes
    .map((n, i) => ({ value: String(i), label: n.name }))
    .filter((t) => Number(t.value) !== index);
  const exists =
    relation !== null &&
    target !== null &&
    draft.connections.some(
      (c) => c.fromIndex === index && c.toIndex === Number(target) && c.type === relation,
    );
  return (
    <Group align="flex-end" gap="xs" wrap="wrap" data-testid="add-connection">
      <Select
        label="Relation"
        data={relations}
        value={relation}
        onChange={setRelation}
        allowDeselect={false}
        w={150}
        searchable
        aria-label="Relation of the new connection"
        data-testid="connection-relation"
      />
      <Select
        label="To node"
        data={targets}
        value={target}
        onChange={setTarget}
        placeholder="Choose a node"
        style={{ flex: 1, minWidth: 150 }}
        searchable
        aria-label="Target of the new connection"
        data-testid="connection-target"
      />
      <Button
        variant="light"
        disabled={relation === null || target === null || exists}
        onClick={() => {
          if (relation === null || target === null) return;
          onAdd({ fromIndex: index, toIndex: Number(target), type: relation });
          setTarget(null);
        }}
        data-testid="connect-nodes"
      >
        Connect
      </Button>
    </Group>
  );
}

/** The selected node: name, debug mode, generated configuration form, connections, debug events. */
export function NodePanel({
  draft,
  index,
  savedDebug,
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
}: {
  draft: ChainDraft;
  index: number;
  savedDebug: boolean;
  type: RuleNodeType | undefined;
  problems: ConfigProblems;
  serverError: string | undefined;
  onRename: (name: string) => void;
  onDebug: (on: boolean) => void;
  onConfig: (config: Record<string, unknown>) => void;
  onSetFirst: () => void;
  onRemove: () => void;
  onAddConnection: (c: NodeConnection) => void;
  onRemoveConnection: (c: NodeConnection) => void;
}) {
  const node = draft.nodes[index]!;
  const name = (i: number) => draft.nodes[i]?.name ?? `#${i}`;
  const outgoing = draft.connections.filter((c) => c.fromIndex === index);
  const incoming = draft.connections.filter((c) => c.toIndex === index && c.fromIndex !== index);
  const isFirst = draft.firstNodeIndex === index;
  return (
    <Card withBorder radius="md" p="md" data-testid="node-panel" data-node={node.name}>
      <Stack gap="sm">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <div>
            <Title order={5}>{type?.label ?? `Unsupported: ${shortType(node.type)}`}</Title>
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
        <Switch
          label="Debug mode"
          description="Records the messages in and out of this node (after saving)"
          checked={node.debugMode === true}
          onChange={(e) => onDebug(e.currentTarget.checked)}
          data-testid="node-debug"
        />
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
        {(type?.relations.length ?? 0) > 0 && draft.nodes.length > 1 ? (
          <AddConnection draft={draft} index={index} relations={type!.relations} onAdd={onAddConnection} />
        ) : (
          <Text size="xs" c="dimmed">
            {type?.relations.length === 0 ? 'This node emits nothing.' : 'Add another node to connect to.'}
          </Text>
        )}
        <Divider label="Debug events" labelPosition="left" />
        <NodeDebugEvents node={node} savedDebug={savedDebug} />
        <Group justify="flex-end">
          <Button variant="light" color="red" size="xs" onClick={onRemove} data-testid="remove-node">
            Remove node
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

import { Alert, Button, Card, Grid, Group, Kbd, List, Menu, Stack, Text, Title } from '@mantine/core';
import { useHotkeys } from '@mantine/hooks';
import { useEffect, useMemo, useState } from 'react';
import type { RuleChainMetadata, RuleNodeType } from '../../api/client.ts';
import { useSaveRuleChainMetadata } from '../../api/hooks.ts';
import {
  addConnection,
  addNode,
  freeSpot,
  moveNode,
  nodeIndexOfError,
  removeConnection,
  removeNode,
  toDraft,
  toMetadata,
  updateNode,
  type ChainDraft,
} from './chain-model.ts';
import { ChainGraph } from './chain-graph.tsx';
import { configProblems, configSchema, problemCount, type ConfigProblems } from './node-config.ts';
import { NodePanel } from './node-panel.tsx';

const NO_PROBLEMS: ConfigProblems = { fields: {}, general: [] };

function uniqueNodeName(base: string, draft: ChainDraft): string {
  const names = new Set(draft.nodes.map((n) => n.name));
  if (!names.has(base)) return base;
  for (let i = 2; ; i++) if (!names.has(`${base} ${i}`)) return `${base} ${i}`;
}

const GROUPS = ['FILTER', 'ENRICHMENT', 'TRANSFORMATION', 'ACTION', 'EXTERNAL', 'FLOW'];

/** Node types in ThingsBoard's palette groups (Filter, Enrichment, ...), each group in the server's order. */
function groupByComponent(types: RuleNodeType[]): [string, RuleNodeType[]][] {
  const byGroup = new Map<string, RuleNodeType[]>();
  for (const t of types) {
    const g = t.componentType ?? 'ACTION';
    byGroup.set(g, [...(byGroup.get(g) ?? []), t]);
  }
  return [...byGroup]
    .sort(([a], [b]) => GROUPS.indexOf(a) - GROUPS.indexOf(b))
    .map(([g, list]) => [g.charAt(0) + g.slice(1).toLowerCase(), list]);
}

function Palette({ types, onAdd }: { types: RuleNodeType[]; onAdd: (t: RuleNodeType) => void }) {
  return (
    <Card withBorder radius="md" p="md" data-testid="node-help">
      <Stack gap="sm">
        <Title order={5}>Select a node to configure it</Title>
        <List size="sm" spacing={4}>
          <List.Item>
            Click a node, or <Kbd>Tab</Kbd> to it and press <Kbd>Enter</Kbd>.
          </List.Item>
          <List.Item>
            Drag it, or move it with the arrow keys (<Kbd>Shift</Kbd> for bigger steps).
          </List.Item>
          <List.Item>
            <Kbd>Delete</Kbd> removes the focused node; <Kbd>Ctrl</Kbd>+<Kbd>S</Kbd> saves the chain.
          </List.Item>
          <List.Item>
            Connect nodes from the source node’s panel: a relation it emits, then the target.
          </List.Item>
        </List>
        <Text size="sm" fw={600}>
          Add a node
        </Text>
        {groupByComponent(types).map(([group, list]) => (
          <Stack key={group} gap={4}>
            <Text size="xs" c="dimmed" tt="uppercase">
              {group}
            </Text>
            <Group gap="xs">
              {list.map((t) => (
                <Button
                  key={t.type}
                  size="xs"
                  variant="default"
                  onClick={() => onAdd(t)}
                  title={t.description}
                >
                  {t.label}
                </Button>
              ))}
            </Group>
          </Stack>
        ))}
      </Stack>
    </Card>
  );
}

/** The graphical editor of one chain: its draft is saved as a whole through POST /api/ruleChain/metadata. */
export function ChainEditor({ metadata, types }: { metadata: RuleChainMetadata; types: RuleNodeType[] }) {
  const save = useSaveRuleChainMetadata();
  const saved = useMemo(() => toDraft(metadata), [metadata]);
  const savedJson = useMemo(() => JSON.stringify(toMetadata(saved)), [saved]);
  const [draft, setDraft] = useState<ChainDraft>(saved);
  const [selected, setSelected] = useState<number | null>(null);
  const [serverError, setServerError] = useState<{ message: string; node?: number } | null>(null);
  const dirty = JSON.stringify(toMetadata(draft)) !== savedJson;

  // the chain saved elsewhere (another window, the demo) replaces an unchanged draft
  const [base, setBase] = useState(saved);
  useEffect(() => {
    if (saved === base) return;
    if (JSON.stringify(toMetadata(draft)) === JSON.stringify(toMetadata(base))) setDraft(saved);
    setBase(saved);
  }, [saved, base, draft]);

  const typeOf = useMemo(() => new Map(types.map((t) => [t.type, t])), [types]);
  const problems = useMemo(
    () =>
      draft.nodes.map((n) => {
        const schema = configSchema(n.type);
        return schema ? configProblems(schema, n.configuration) : NO_PROBLEMS;
      }),
    [draft.nodes],
  );
  const problemNodes = useMemo(() => {
    const set = new Set<number>();
    problems.forEach((p, i) => problemCount(p) > 0 && set.add(i));
    draft.nodes.forEach((n, i) => (n.name.trim() === '' || !typeOf.has(n.type)) && set.add(i));
    if (serverError?.node !== undefined) set.add(serverError.node);
    return set;
  }, [problems, draft.nodes, serverError, typeOf]);
  const savedDebug = useMemo(
    () => new Set(saved.nodes.filter((n) => n.debugMode && n.id?.id).map((n) => n.id!.id)),
    [saved],
  );

  const edit = (next: ChainDraft) => {
    setDraft(next);
    setServerError(null);
  };
  const onAdd = (t: RuleNodeType) => {
    const at = freeSpot(draft, selected ?? undefined);
    const next = addNode(draft, {
      type: t.type,
      name: uniqueNodeName(t.label, draft),
      debugMode: false,
      configuration: structuredClone(t.defaultConfiguration),
      additionalInfo: { layoutX: at.x, layoutY: at.y },
    });
    edit(next);
    setSelected(next.nodes.length - 1);
  };
  const onRemove = (index: number) => {
    edit(removeNode(draft, index));
    setSelected(null);
  };
  const onSave = () => {
    if (save.isPending) return;
    save.mutate(toMetadata(draft), {
      onSuccess: (result) => {
        setDraft(toDraft(result));
        setServerError(null);
      },
      onError: (err) => {
        const message = err instanceof Error ? err.message : String(err);
        const node = nodeIndexOfError(message);
        setServerError({ message, node });
        if (node !== undefined && draft.nodes[node]) setSelected(node);
      },
    });
  };
  const discard = () => {
    setDraft(saved);
    setSelected(null);
    setServerError(null);
    save.reset();
  };
  useHotkeys([['mod+S', onSave]], []);

  const sel = selected !== null && draft.nodes[selected] ? selected : null;
  const problemTotal = problemNodes.size;

  return (
    <Stack gap="sm" data-testid="chain-editor" data-dirty={dirty}>
      <Group justify="space-between" wrap="wrap">
        <Group gap="xs">
          <Menu position="bottom-start" withinPortal>
            <Menu.Target>
              <Button variant="light" data-testid="add-node">
                Add node
              </Button>
            </Menu.Target>
            <Menu.Dropdown mah="60vh" style={{ overflowY: 'auto' }}>
              <Menu.Label>
                {sel !== null ? `Placed after ${draft.nodes[sel]!.name}` : 'Node types'}
              </Menu.Label>
              {groupByComponent(types).map(([group, list]) => (
                <div key={group}>
                  <Menu.Label>{group}</Menu.Label>
                  {list.map((t) => (
                    <Menu.Item key={t.type} onClick={() => onAdd(t)} data-testid={`palette-${t.label}`}>
                      {t.label}
                    </Menu.Item>
                  ))}
                </div>
              ))}
            </Menu.Dropdown>
          </Menu>
          <Text size="sm" c="dimmed">
            {draft.nodes.length} nodes · {draft.connections.length} connections
          </Text>
        </Group>
        <Group gap="xs">
          {dirty && (
            <Text size="sm" c="dimmed" data-testid="unsaved">
              Unsaved changes
            </Text>
          )}
          <Button variant="default" onClick={discard} disabled={!dirty || save.isPending}>
            Discard
          </Button>
          <Button onClick={onSave} loading={save.isPending} disabled={!dirty} data-testid="save-chain">
            Save chain
          </Button>
        </Group>
      </Group>
      {problemTotal > 0 && !serverError && (
        <Text size="sm" c="red" data-testid="chain-problems">
          {problemTotal} node{problemTotal === 1 ? ' has' : 's have'} a problem (marked “!”): the server will
          refuse the chain until {problemTotal === 1 ? 'it is' : 'they are'} fixed.
        </Text>
      )}
      {serverError && (
        <Alert
          color="red"
          variant="light"
          title="The chain was not saved"
          data-testid="chain-save-error"
          role="alert"
        >
          <Group justify="space-between" wrap="nowrap">
            <Text size="sm">{serverError.message}</Text>
            {serverError.node !== undefined && draft.nodes[serverError.node] && sel !== serverError.node && (
              <Button
                size="compact-xs"
                variant="light"
                color="red"
                onClick={() => setSelected(serverError.node!)}
              >
                Show the node
              </Button>
            )}
          </Group>
        </Alert>
      )}
      {save.isSuccess && !dirty && (
        <Text size="sm" c="teal" data-testid="chain-saved">
          Saved: the rule engine runs the new chain now.
        </Text>
      )}
      <Grid>
        <Grid.Col span={{ base: 12, lg: 8 }}>
          <Card withBorder radius="md" p={0} style={{ overflow: 'hidden' }}>
            <ChainGraph
              draft={draft}
              types={types}
              selected={sel}
              problemNodes={problemNodes}
              onSelect={setSelected}
              onMove={(i, x, y) => setDraft((d) => moveNode(d, i, x, y))}
              onRemove={onRemove}
            />
          </Card>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 4 }}>
          {sel === null ? (
            <Palette types={types} onAdd={onAdd} />
          ) : (
            <NodePanel
              key={draft.nodes[sel]!.id?.id ?? `new-${sel}`}
              draft={draft}
              index={sel}
              savedDebug={draft.nodes[sel]!.id?.id ? savedDebug.has(draft.nodes[sel]!.id!.id) : false}
              type={typeOf.get(draft.nodes[sel]!.type)}
              problems={problems[sel] ?? NO_PROBLEMS}
              serverError={serverError?.node === sel ? serverError.message : undefined}
              onRename={(name) => edit(updateNode(draft, sel, { name }))}
              onDebug={(on) =>
                edit(
                  updateNode(draft, sel, {
                    debugMode: on,
                    // ThingsBoard 4.x: failures always, everything for the next 15 minutes (the server caps it)
                    debugSettings: on
                      ? { failuresEnabled: true, allEnabled: true }
                      : { failuresEnabled: false, allEnabled: false, allEnabledUntil: 0 },
                  }),
                )
              }
              onConfig={(configuration) => edit(updateNode(draft, sel, { configuration }))}
              onSetFirst={() => edit({ ...draft, firstNodeIndex: sel })}
              onRemove={() => onRemove(sel)}
              onAddConnection={(c) => edit(addConnection(draft, c))}
              onRemoveConnection={(c) => edit(removeConnection(draft, c))}
            />
          )}
        </Grid.Col>
      </Grid>
    </Stack>
  );
}

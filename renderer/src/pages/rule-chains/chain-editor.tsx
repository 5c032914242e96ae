import { Alert, Badge, Button, Card, Grid, Group, Kbd, Stack, Tabs, Text, Tooltip } from '@mantine/core';
import { useHotkeys, useMediaQuery } from '@mantine/hooks';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import type { MessageTraceEvent, RuleChainMetadata } from '../../../../shared/rule-engine.ts';
import type { RuleNodeType } from '../../api/client.ts';
import { useSaveRuleChainMetadata } from '../../api/hooks.ts';
import type { RuleChain } from '../../api/rule-chains-api.ts';
import { ChainGraph } from './chain-graph.tsx';
import { useHistory } from './chain-history.ts';
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
import { configProblems, configSchema, problemCount, type ConfigProblems } from './node-config.ts';
import { NodePalette } from './node-palette.tsx';
import { NodePanel } from './node-panel.tsx';
import { StoppedNodes } from './stopped-nodes.tsx';
import { ConnectDialog } from './relation-input.tsx';
import { graphHighlight, traceVisits, type TraceVisit } from './trace-model.ts';
import { TracePanel } from './trace-panel.tsx';
import { ChainTestPanel, useChainTests } from './chain-test-panel.tsx';

const NO_PROBLEMS: ConfigProblems = { fields: {}, general: [] };

function uniqueNodeName(base: string, draft: ChainDraft): string {
  const names = new Set(draft.nodes.map((n) => n.name));
  if (!names.has(base)) return base;
  for (let i = 2; ; i++) if (!names.has(`${base} ${i}`)) return `${base} ${i}`;
}

/** The message being followed, as the page loads it. */
export interface FollowedMessage {
  traceId: string;
  events: MessageTraceEvent[] | undefined;
  loading: boolean;
  error: unknown;
}

type SideTab = 'chains' | 'node' | 'trace' | 'test';

function KeyboardHelp() {
  return (
    <Text size="xs" c="dimmed" data-testid="keyboard-help">
      <Kbd>Tab</Kbd> to a node, <Kbd>Enter</Kbd> selects it, arrow keys move it, <Kbd>Delete</Kbd> removes it
      · <Kbd>A</Kbd> adds a node · <Kbd>Ctrl</Kbd>+<Kbd>Z</Kbd> undo, <Kbd>Ctrl</Kbd>+<Kbd>Shift</Kbd>+
      <Kbd>Z</Kbd> redo · <Kbd>Ctrl</Kbd>+<Kbd>S</Kbd> saves · <Kbd>Esc</Kbd> closes
    </Text>
  );
}

/**
 * The graphical editor of one chain: nodes added from a searchable palette, connected by dragging from a
 * port (or from the node's panel), every change undoable, the draft saved as a whole through
 * POST /api/ruleChain/metadata. Beside the graph: the chain list, the selected node, the followed message.
 */
export function ChainEditor({
  chain,
  metadata,
  types,
  chainsPanel,
  followed,
  chainName,
  focusNodeId,
  onFollow,
  onStopFollowing,
  onOpenChain,
  onImport,
  onExport,
  onDirtyChange,
}: {
  chain: RuleChain;
  metadata: RuleChainMetadata;
  /** the node types this chain's type may hold */
  types: RuleNodeType[];
  chainsPanel: ReactNode;
  followed: FollowedMessage | undefined;
  chainName: (id: string) => string;
  /** a node to select once the chain is open (a trace step of this chain) */
  focusNodeId?: string;
  onFollow: (traceId: string) => void;
  onStopFollowing: () => void;
  onOpenChain: (chainId: string, nodeId?: string) => void;
  onImport: () => void;
  onExport: () => void;
  onDirtyChange: (dirty: boolean) => void;
}) {
  const save = useSaveRuleChainMetadata();
  // Mantine's lg breakpoint, where the graph and the side panel stand side by side
  const sideBySide = useMediaQuery('(min-width: 75em)') === true;
  const saved = useMemo(() => toDraft(metadata), [metadata]);
  const savedJson = useMemo(() => JSON.stringify(toMetadata(saved)), [saved]);
  const history = useHistory<ChainDraft>(saved);
  const { reset } = history;
  const draft = history.present;
  const [selected, setSelectedIndex] = useState<number | null>(() => {
    const i = focusNodeId ? saved.nodes.findIndex((n) => n.id?.id === focusNodeId) : -1;
    return i >= 0 ? i : null;
  });
  const [tab, setTab] = useState<SideTab>(selected !== null ? 'node' : followed ? 'trace' : 'chains');
  const [paletteOpen, setPaletteOpen] = useState(false);
  const [connecting, setConnecting] = useState<{ from: number; to: number } | null>(null);
  const [serverError, setServerError] = useState<{ message: string; node?: number } | null>(null);
  const dirty = JSON.stringify(toMetadata(draft)) !== savedJson;
  const tests = useChainTests(chain.id.id, chain.name);
  useEffect(() => onDirtyChange(dirty), [dirty, onDirtyChange]);

  const select = (index: number | null) => {
    setSelectedIndex(index);
    if (index !== null) setTab('node');
    else setTab((t) => (t === 'node' ? (followed ? 'trace' : tests.trace ? 'test' : 'chains') : t));
  };

  // the chain saved elsewhere (another window, the demo) replaces an unchanged draft
  const [base, setBase] = useState(saved);
  useEffect(() => {
    if (saved === base) return;
    if (JSON.stringify(toMetadata(draft)) === JSON.stringify(toMetadata(base))) reset(saved);
    setBase(saved);
  }, [saved, base, draft, reset]);

  // a message to follow shows its way
  const traceId = followed?.traceId;
  useEffect(() => {
    if (traceId) setTab('trace');
    else setTab((t) => (t === 'trace' ? 'chains' : t));
  }, [traceId]);
  const visits = useMemo(
    () => (followed?.events ? traceVisits(followed.events) : undefined),
    [followed?.events],
  );
  // a test case's way, while one is shown and the followed message's tab is not open
  const shownVisits = tab !== 'trace' && tests.trace ? tests.trace : followed?.events;
  const highlight = useMemo(
    () => (shownVisits ? graphHighlight(traceVisits(shownVisits), draft, chain.id.id) : undefined),
    [shownVisits, draft, chain.id.id],
  );

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
  const savedById = useMemo(() => new Map(saved.nodes.map((n) => [n.id?.id, n] as const)), [saved]);

  const edit = (next: ChainDraft | ((d: ChainDraft) => ChainDraft), key: string | null = null) => {
    history.edit(next, key);
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
    select(next.nodes.length - 1);
  };
  const onRemove = (index: number) => {
    edit(removeNode(draft, index));
    select(null);
  };
  const onSave = () => {
    if (save.isPending || !dirty) return;
    save.mutate(toMetadata(draft), {
      onSuccess: (result) => {
        history.reset(toDraft(result));
        setServerError(null);
      },
      onError: (err) => {
        const message = err instanceof Error ? err.message : String(err);
        const node = nodeIndexOfError(message);
        setServerError({ message, node });
        if (node !== undefined && draft.nodes[node]) select(node);
      },
    });
  };
  const discard = () => {
    history.reset(saved);
    select(null);
    setServerError(null);
    save.reset();
  };
  useHotkeys([
    ['mod+S', onSave],
    ['mod+Z', history.undo],
    ['mod+shift+Z', history.redo],
    ['mod+Y', history.redo],
    ['A', () => setPaletteOpen(true)],
  ]);

  const sel = selected !== null && draft.nodes[selected] ? selected : null;
  const problemTotal = problemNodes.size;
  const showVisit = (v: TraceVisit) => {
    if (v.ruleChainId !== chain.id.id) return onOpenChain(v.ruleChainId, v.nodeId);
    const i = draft.nodes.findIndex((n) => n.id?.id === v.nodeId);
    if (i >= 0) select(i);
  };

  return (
    <Stack gap="sm" data-testid="chain-editor" data-dirty={dirty}>
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Group gap="xs">
          <Button variant="light" onClick={() => setPaletteOpen(true)} data-testid="add-node">
            Add node
          </Button>
          <Tooltip label="Undo (Ctrl+Z)">
            <Button variant="default" onClick={history.undo} disabled={!history.canUndo} data-testid="undo">
              Undo
            </Button>
          </Tooltip>
          <Tooltip label="Redo (Ctrl+Shift+Z)">
            <Button variant="default" onClick={history.redo} disabled={!history.canRedo} data-testid="redo">
              Redo
            </Button>
          </Tooltip>
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
          <Button variant="default" onClick={onImport} data-testid="import-chain">
            Import
          </Button>
          <Tooltip
            label={
              dirty ? 'Exports the chain as last saved' : 'Saves the chain to a file ThingsBoard imports'
            }
          >
            <Button variant="default" onClick={onExport} data-testid="export-chain">
              Export
            </Button>
          </Tooltip>
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
              <Button size="compact-xs" variant="light" color="red" onClick={() => select(serverError.node!)}>
                Show the node
              </Button>
            )}
          </Group>
        </Alert>
      )}
      {chain.type === 'CORE' && <StoppedNodes chainId={chain.id.id} />}
      {save.isSuccess && !dirty && (
        <Text size="sm" c="teal" data-testid="chain-saved">
          {chain.type === 'EDGE'
            ? 'Saved: edges this chain is assigned to get it.'
            : 'Saved: the rule engine runs the new chain now.'}
        </Text>
      )}
      <Grid>
        <Grid.Col span={{ base: 12, lg: 8 }}>
          {/* side by side, the graph stays in view while the side panel (a long node form) scrolls */}
          <div
            style={
              sideBySide
                ? { position: 'sticky', top: 'calc(var(--app-shell-header-height, 0px) + 12px)', zIndex: 1 }
                : undefined
            }
          >
            <Card withBorder radius="md" p={0}>
              <ChainGraph
                draft={draft}
                types={types}
                selected={sel}
                problemNodes={problemNodes}
                highlight={highlight}
                onSelect={select}
                onMove={(i, x, y) => edit((d) => moveNode(d, i, x, y), `move-${i}`)}
                onRemove={onRemove}
                onConnect={(from, to) => setConnecting({ from, to })}
              />
            </Card>
            <KeyboardHelp />
          </div>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 4 }}>
          <Card withBorder radius="md" p="sm">
            <Tabs value={tab} onChange={(v) => v && setTab(v as SideTab)} keepMounted={false}>
              <Tabs.List mb="sm">
                <Tabs.Tab value="chains" data-testid="tab-chains">
                  Chains
                </Tabs.Tab>
                <Tabs.Tab value="node" disabled={sel === null} data-testid="tab-node">
                  Node
                </Tabs.Tab>
                {followed && (
                  <Tabs.Tab
                    value="trace"
                    data-testid="tab-trace"
                    rightSection={
                      visits ? (
                        <Badge size="xs" color="orange" variant="light">
                          {visits.length}
                        </Badge>
                      ) : undefined
                    }
                  >
                    Message
                  </Tabs.Tab>
                )}
                {chain.type === 'CORE' && (
                  <Tabs.Tab value="test" data-testid="tab-test">
                    Test
                  </Tabs.Tab>
                )}
              </Tabs.List>
              <Tabs.Panel value="chains">{chainsPanel}</Tabs.Panel>
              <Tabs.Panel value="node">
                {sel !== null && (
                  <NodePanel
                    key={draft.nodes[sel]!.id?.id ?? `new-${sel}`}
                    draft={draft}
                    index={sel}
                    saved={savedById.get(draft.nodes[sel]!.id?.id)}
                    type={typeOf.get(draft.nodes[sel]!.type)}
                    problems={problems[sel] ?? NO_PROBLEMS}
                    serverError={serverError?.node === sel ? serverError.message : undefined}
                    onRename={(name) => edit(updateNode(draft, sel, { name }), `name-${sel}`)}
                    onDebug={(patch) => edit(updateNode(draft, sel, patch))}
                    onConfig={(configuration) =>
                      edit(updateNode(draft, sel, { configuration }), `config-${sel}`)
                    }
                    onSetFirst={() => edit({ ...draft, firstNodeIndex: sel })}
                    onRemove={() => onRemove(sel)}
                    onAddConnection={(c) => edit((d) => addConnection(d, c))}
                    onRemoveConnection={(c) => edit(removeConnection(draft, c))}
                    onFollow={onFollow}
                  />
                )}
              </Tabs.Panel>
              {followed && (
                <Tabs.Panel value="trace">
                  <TracePanel
                    visits={visits}
                    loading={followed.loading}
                    error={followed.error}
                    chainId={chain.id.id}
                    chainName={chainName}
                    onShow={showVisit}
                    onClose={onStopFollowing}
                  />
                </Tabs.Panel>
              )}
              <Tabs.Panel value="test">
                <ChainTestPanel tests={tests} chainName={chain.name} dirty={dirty} />
              </Tabs.Panel>
            </Tabs>
          </Card>
        </Grid.Col>
      </Grid>
      <NodePalette
        opened={paletteOpen}
        types={types}
        placedAfter={sel !== null ? draft.nodes[sel]!.name : undefined}
        onAdd={onAdd}
        onClose={() => setPaletteOpen(false)}
      />
      {connecting && draft.nodes[connecting.from] && draft.nodes[connecting.to] && (
        <ConnectDialog
          from={draft.nodes[connecting.from]!}
          to={draft.nodes[connecting.to]!}
          fromType={typeOf.get(draft.nodes[connecting.from]!.type)}
          taken={draft.connections
            .filter((c) => c.fromIndex === connecting.from && c.toIndex === connecting.to)
            .map((c) => c.type)}
          onConnect={(relations) => {
            const { from, to } = connecting;
            edit((d) =>
              relations.reduce((acc, type) => addConnection(acc, { fromIndex: from, toIndex: to, type }), d),
            );
            setConnecting(null);
            select(from);
          }}
          onClose={() => setConnecting(null)}
        />
      )}
    </Stack>
  );
}

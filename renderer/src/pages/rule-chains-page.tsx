import { Alert, Badge, Group, Skeleton, Stack, Text } from '@mantine/core';
import { useCallback, useMemo, useState } from 'react';
import { useApi } from '../api/api-context.tsx';
import { useCurrentUser, useRuleChainMetadata, useRuleNodeTypes } from '../api/hooks.ts';
import { exportRuleChainFile, type RuleChain } from '../api/rule-chains-api.ts';
import {
  useAllRuleChains,
  useDeleteRuleChain,
  useImportRuleChainFile,
  useImportRuleChains,
  useMessageTrace,
  useSaveRuleChain,
  useSetRootRuleChain,
} from '../api/rule-chains-hooks.ts';
import { fileNameFor, openTextFile, saveTextFile } from '../components/desktop-files.ts';
import { ErrorAlert } from '../components/error-alert.tsx';
import { PageHeader } from '../components/page-header.tsx';
import { ChainFormDialog, ConfirmDialog, type ChainForm } from './rule-chains/chain-dialogs.tsx';
import { ChainEditor } from './rule-chains/chain-editor.tsx';
import { ChainList } from './rule-chains/chain-list.tsx';
import { readChainFile } from './rule-chains/chain-transfer.ts';

type Notice = { color: 'teal' | 'red'; title: string; text: string };

export default function RuleChainsPage() {
  const client = useApi();
  const user = useCurrentUser();
  const isAdmin = user.data?.authority === 'TENANT_ADMIN';
  const chains = useAllRuleChains(isAdmin);
  const types = useRuleNodeTypes(isAdmin);
  const [chosen, setChosen] = useState<{ id: string; focusNodeId?: string } | undefined>();
  const list = useMemo(() => chains.data ?? [], [chains.data]);
  const chosenExists = chosen && list.some((c) => c.id.id === chosen.id);
  const selected = chosenExists
    ? chosen.id
    : (list.find((c) => c.root && c.type !== 'EDGE')?.id.id ?? list[0]?.id.id);
  const chain = list.find((c) => c.id.id === selected);
  const metadata = useRuleChainMetadata(selected);
  const chainTypes = useMemo(
    () => types.data?.filter((t) => !t.ruleChainTypes || t.ruleChainTypes.includes(chain?.type ?? 'CORE')),
    [types.data, chain?.type],
  );

  const [dirty, setDirty] = useState(false);
  const [pendingOpen, setPendingOpen] = useState<{ id: string; focusNodeId?: string } | null>(null);
  const [traceId, setTraceId] = useState<string | undefined>();
  const trace = useMessageTrace(traceId);
  const [form, setForm] = useState<{ chain?: RuleChain } | null>(null);
  const [deleting, setDeleting] = useState<RuleChain | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  const saveChain = useSaveRuleChain();
  const deleteChain = useDeleteRuleChain();
  const setRoot = useSetRootRuleChain();
  const importFile = useImportRuleChainFile();
  const importMany = useImportRuleChains();

  const open = useCallback(
    (id: string, focusNodeId?: string) => {
      if (id === selected && !focusNodeId) return;
      if (dirty && id !== selected) setPendingOpen({ id, focusNodeId });
      else setChosen({ id, focusNodeId });
    },
    [dirty, selected],
  );
  const chainName = useCallback(
    (id: string) => list.find((c) => c.id.id === id)?.name ?? 'another chain',
    [list],
  );
  const onDirtyChange = useCallback((d: boolean) => setDirty(d), []);

  const onSaveForm = (f: ChainForm) => {
    const existing = form?.chain;
    const additionalInfo = { ...(existing?.additionalInfo ?? {}), description: f.description };
    saveChain.mutate(
      existing
        ? {
            id: existing.id,
            name: f.name,
            type: existing.type === 'EDGE' ? 'EDGE' : 'CORE',
            root: existing.root,
            debugMode: existing.debugMode,
            configuration: existing.configuration,
            additionalInfo,
          }
        : { name: f.name, type: f.type, additionalInfo },
      {
        onSuccess: (c) => {
          setForm(null);
          if (!existing) open(c.id.id);
        },
      },
    );
  };

  const onExport = async (c: RuleChain) => {
    try {
      const file = await exportRuleChainFile(client, c.id.id);
      const name = await saveTextFile(fileNameFor(c.name), `${JSON.stringify(file, null, 2)}\n`, {
        title: 'Export the rule chain',
        filters: [{ name: 'Rule chain', extensions: ['json'] }],
      });
      if (name) setNotice({ color: 'teal', title: 'Exported', text: `${c.name} was saved as ${name}.` });
    } catch (err) {
      setNotice({ color: 'red', title: 'Could not export the chain', text: (err as Error).message });
    }
  };

  const onImport = async () => {
    let picked;
    try {
      picked = await openTextFile({
        title: 'Import a rule chain',
        filters: [{ name: 'Rule chain', extensions: ['json'] }],
      });
    } catch (err) {
      setNotice({ color: 'red', title: 'Could not read the file', text: (err as Error).message });
      return;
    }
    if (!picked) return;
    const contents = readChainFile(picked.contents);
    const failed = (err: unknown) =>
      setNotice({
        color: 'red',
        title: `Could not import ${picked.name}`,
        text: err instanceof Error ? err.message : String(err),
      });
    if (contents.kind === 'invalid') return failed(contents.reason);
    if (contents.kind === 'chain') {
      importFile.mutate(contents.file, {
        onSuccess: (r) => {
          setNotice({
            color: 'teal',
            title: 'Imported',
            text: `${r.ruleChain.name} (${r.metadata.nodes.length} nodes) is a new ${r.ruleChain.type} chain.`,
          });
          open(r.ruleChain.id.id);
        },
        onError: failed,
      });
      return;
    }
    importMany.mutate(contents.data, {
      onSuccess: (results) => {
        const bad = results.filter((r) => r.error);
        setNotice({
          color: bad.length ? 'red' : 'teal',
          title: `Imported ${results.length - bad.length} of ${results.length} chains`,
          text:
            bad.map((r) => `${r.ruleChainName}: ${r.error}`).join('; ') ||
            results.map((r) => r.ruleChainName).join(', '),
        });
      },
      onError: failed,
    });
  };

  return (
    <Stack gap="md">
      <PageHeader
        title="Rule Chains"
        description="How incoming messages are processed, node by node. Edit the graph, then save: the engine runs it at once."
      />
      {user.data && !isAdmin && (
        <Text size="sm" c="dimmed">
          Rule chains belong to the tenant administrator.
        </Text>
      )}
      {chain && (
        <Group gap="xs">
          <Text fw={600} data-testid="rule-chain-name">
            {chain.name}
          </Text>
          {chain.root && (
            <Badge size="sm" variant="light">
              {chain.type === 'EDGE' ? 'edge template root' : 'root'}
            </Badge>
          )}
          {chain.type === 'EDGE' && (
            <Badge size="sm" variant="outline" color="grape">
              edge chain
            </Badge>
          )}
        </Group>
      )}
      {notice && (
        <Alert
          color={notice.color}
          variant="light"
          title={notice.title}
          withCloseButton
          closeButtonLabel="Dismiss"
          onClose={() => setNotice(null)}
          data-testid="chains-notice"
          role={notice.color === 'red' ? 'alert' : 'status'}
        >
          {notice.text}
        </Alert>
      )}
      <ErrorAlert error={chains.error ?? types.error} title="Could not load the rule chains" />
      <ErrorAlert error={metadata.error} title="Could not load the chain's nodes" />
      <ErrorAlert error={setRoot.error} title="Could not change the root chain" />
      {isAdmin && (!metadata.data || !chainTypes) && !chains.error && !metadata.error && <Skeleton h={360} />}
      {chain && metadata.data && chainTypes && (
        <ChainEditor
          key={`${chain.id.id}|${chosen?.focusNodeId ?? ''}`}
          chain={chain}
          metadata={metadata.data}
          types={chainTypes}
          focusNodeId={chosen?.id === chain.id.id ? chosen.focusNodeId : undefined}
          followed={
            traceId
              ? { traceId, events: trace.data, loading: trace.isPending, error: trace.error }
              : undefined
          }
          chainName={chainName}
          onFollow={(id) => {
            if (id === traceId) void trace.refetch();
            else setTraceId(id);
          }}
          onStopFollowing={() => setTraceId(undefined)}
          onOpenChain={open}
          onImport={() => void onImport()}
          onExport={() => void onExport(chain)}
          onDirtyChange={onDirtyChange}
          chainsPanel={
            <ChainList
              chains={list}
              currentId={selected}
              actions={{
                onOpen: (c) => open(c.id.id),
                onNew: () => {
                  saveChain.reset();
                  setForm({});
                },
                onRename: (c) => {
                  saveChain.reset();
                  setForm({ chain: c });
                },
                onSetRoot: (c) => setRoot.mutate(c),
                onExport: (c) => void onExport(c),
                onDelete: (c) => {
                  deleteChain.reset();
                  setDeleting(c);
                },
              }}
            />
          }
        />
      )}
      {form && (
        <ChainFormDialog
          chain={form.chain}
          pending={saveChain.isPending}
          error={saveChain.error}
          onSave={onSaveForm}
          onClose={() => setForm(null)}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete ${deleting.name}?`}
          message="The chain and its nodes are deleted; messages that would go there go to the root chain. This cannot be undone."
          confirm="Delete"
          danger
          pending={deleteChain.isPending}
          error={deleteChain.error}
          onConfirm={() => deleteChain.mutate(deleting.id.id, { onSuccess: () => setDeleting(null) })}
          onClose={() => setDeleting(null)}
        />
      )}
      {pendingOpen && (
        <ConfirmDialog
          title="Discard the unsaved changes?"
          message={`${chain?.name ?? 'This chain'} has changes that are not saved. Opening ${chainName(pendingOpen.id)} drops them.`}
          confirm="Discard and open"
          danger
          onConfirm={() => {
            setChosen(pendingOpen);
            setPendingOpen(null);
            setDirty(false);
          }}
          onClose={() => setPendingOpen(null)}
        />
      )}
    </Stack>
  );
}

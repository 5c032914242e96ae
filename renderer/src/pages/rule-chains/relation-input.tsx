import { Button, Chip, Group, Modal, Stack, TagsInput, Text } from '@mantine/core';
import { useState } from 'react';
import type { RuleNodeJson } from '../../../../shared/rule-engine.ts';
import type { RuleNodeType } from '../../api/client.ts';
import { useRuleChainOutputLabels } from '../../api/rule-chains-hooks.ts';
import { relationProblem } from './chain-model.ts';

/**
 * The relations a node may be connected by: its type's, plus for a rule chain node the output labels of the
 * chain it calls. `free` says whether other names may be typed (nodes that name their relations: script
 * switch, rule chain node).
 */
export function useNodeRelations(
  node: RuleNodeJson | undefined,
  type: RuleNodeType | undefined,
): { relations: string[]; free: boolean } {
  const called =
    type?.ruleChainNode && typeof node?.configuration.ruleChainId === 'string'
      ? node.configuration.ruleChainId
      : undefined;
  const labels = useRuleChainOutputLabels(called);
  const relations = [...new Set([...(type?.relations ?? []), ...(labels.data ?? [])])];
  // an unsupported node keeps what it was imported with: any relation
  return { relations, free: !type || type.customRelations === true };
}

/**
 * The relations of a connection: the node's own as chips, and a field where names are typed (and, for
 * nodes that name their relations, any name). Enter in the empty field confirms.
 */
export function RelationPicker({
  value,
  onChange,
  relations,
  free,
  taken,
  onSubmit,
  error,
}: {
  value: string[];
  onChange: (value: string[]) => void;
  relations: string[];
  free: boolean;
  /** relations already connecting the same two nodes */
  taken: string[];
  onSubmit: () => void;
  error: string | null;
}) {
  const [search, setSearch] = useState('');
  const offered = relations.filter((r) => !taken.includes(r));
  return (
    <Stack gap="xs">
      {offered.length > 0 && (
        <Chip.Group multiple value={value} onChange={onChange}>
          <Group gap={6} role="group" aria-label="Relations this node emits">
            {offered.map((r) => (
              <Chip key={r} value={r} size="xs" data-testid="relation-chip">
                {r}
              </Chip>
            ))}
          </Group>
        </Chip.Group>
      )}
      <TagsInput
        label="Relations"
        description={
          free
            ? 'Type a relation name and press Enter (this node names its own relations); Enter again connects.'
            : 'Pick from the list or type one; Enter in the empty field connects.'
        }
        data={offered}
        value={value}
        onChange={onChange}
        searchValue={search}
        onSearchChange={setSearch}
        acceptValueOnBlur
        clearable
        error={error}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && search.trim() === '') {
            e.preventDefault();
            onSubmit();
          }
        }}
        data-testid="relation-input"
      />
      {taken.length > 0 && (
        <Text size="xs" c="dimmed">
          Already connected by {taken.join(', ')}.
        </Text>
      )}
    </Stack>
  );
}

/** The dialog a drag from one node's port to another opens: which relations connect them. */
export function ConnectDialog({
  from,
  to,
  fromType,
  taken,
  onConnect,
  onClose,
}: {
  from: RuleNodeJson;
  to: RuleNodeJson;
  fromType: RuleNodeType | undefined;
  taken: string[];
  onConnect: (relations: string[]) => void;
  onClose: () => void;
}) {
  const { relations, free } = useNodeRelations(from, fromType);
  const first = relations.find((r) => !taken.includes(r) && r !== 'Failure');
  const [value, setValue] = useState<string[]>(first ? [first] : []);
  const [tried, setTried] = useState(false);
  const problem = relationProblem(value, relations, free);
  const submit = () => {
    setTried(true);
    if (!problem) onConnect(value);
  };
  return (
    <Modal opened onClose={onClose} title={`Connect ${from.name} → ${to.name}`} data-testid="connect-dialog">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Stack gap="md">
          <RelationPicker
            value={value}
            onChange={setValue}
            relations={relations}
            free={free}
            taken={taken}
            onSubmit={submit}
            error={tried ? problem : null}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" data-testid="connect-confirm">
              Connect
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

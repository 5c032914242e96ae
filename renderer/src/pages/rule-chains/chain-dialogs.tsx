import {
  Alert,
  Button,
  Group,
  Modal,
  SegmentedControl,
  Stack,
  Text,
  TextInput,
  Textarea,
} from '@mantine/core';
import { useState, type ReactNode } from 'react';
import type { RuleChain, RuleChainType } from '../../api/rule-chains-api.ts';

export interface ChainForm {
  name: string;
  type: RuleChainType;
  description: string;
}

const descriptionOf = (chain: RuleChain | undefined): string => {
  const d = (chain?.additionalInfo as { description?: unknown } | null | undefined)?.description;
  return typeof d === 'string' ? d : '';
};

/** A dialog's error (the server's message), then Cancel and its submit button (Enter). */
function DialogActions({
  error,
  pending,
  danger,
  focus,
  testId,
  onClose,
  children,
}: {
  error?: unknown;
  pending?: boolean;
  danger?: boolean;
  /** the submit button takes the focus when the dialog opens (a question; a form focuses its field) */
  focus?: boolean;
  testId: string;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <>
      {error ? (
        <Alert color="red" variant="light" role="alert" data-testid="dialog-error">
          {error instanceof Error ? error.message : String(error)}
        </Alert>
      ) : null}
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          Cancel
        </Button>
        <Button
          type="submit"
          color={danger ? 'red' : undefined}
          loading={pending}
          data-autofocus={focus || undefined}
          data-testid={testId}
        >
          {children}
        </Button>
      </Group>
    </>
  );
}

/** Creates a chain (name, CORE or EDGE, description) or renames one; Enter saves, Esc closes. */
export function ChainFormDialog({
  chain,
  pending,
  error,
  onSave,
  onClose,
}: {
  /** the chain to rename; undefined: a new chain */
  chain?: RuleChain;
  pending: boolean;
  error: unknown;
  onSave: (form: ChainForm) => void;
  onClose: () => void;
}) {
  const [name, setName] = useState(chain?.name ?? '');
  const [type, setType] = useState<RuleChainType>(chain?.type === 'EDGE' ? 'EDGE' : 'CORE');
  const [description, setDescription] = useState(descriptionOf(chain));
  const [tried, setTried] = useState(false);
  const nameError = name.trim() === '' ? 'is required' : name.length > 255 ? 'at most 255 characters' : null;
  return (
    <Modal
      opened
      onClose={onClose}
      title={chain ? `Rename ${chain.name}` : 'New rule chain'}
      data-testid="chain-form"
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setTried(true);
          if (!nameError) onSave({ name: name.trim(), type, description });
        }}
      >
        <Stack gap="sm">
          <TextInput
            data-autofocus
            label="Name"
            required
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={tried ? nameError : null}
            data-testid="chain-form-name"
          />
          {!chain && (
            <div>
              <Text size="sm" fw={500} mb={4} id="chain-type-label">
                Type
              </Text>
              <SegmentedControl
                value={type}
                onChange={(v) => setType(v as RuleChainType)}
                data={[
                  { value: 'CORE', label: 'Core (this platform)' },
                  { value: 'EDGE', label: 'Edge (run by edges)' },
                ]}
                aria-labelledby="chain-type-label"
                data-testid="chain-form-type"
              />
            </div>
          )}
          <Textarea
            label="Description"
            autosize
            minRows={2}
            maxRows={5}
            value={description}
            onChange={(e) => setDescription(e.currentTarget.value)}
          />
          <DialogActions error={error} pending={pending} onClose={onClose} testId="chain-form-save">
            {chain ? 'Rename' : 'Create'}
          </DialogActions>
        </Stack>
      </form>
    </Modal>
  );
}

/** A yes / no question with what is at stake; Enter confirms, Esc closes. */
export function ConfirmDialog({
  title,
  message,
  confirm,
  danger,
  pending,
  error,
  onConfirm,
  onClose,
}: {
  title: string;
  message: string;
  confirm: string;
  danger?: boolean;
  pending?: boolean;
  error?: unknown;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Modal opened onClose={onClose} title={title} data-testid="confirm-dialog">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onConfirm();
        }}
      >
        <Stack gap="sm">
          <Text size="sm">{message}</Text>
          <DialogActions
            error={error}
            pending={pending}
            onClose={onClose}
            testId="confirm-ok"
            danger={danger}
            focus
          >
            {confirm}
          </DialogActions>
        </Stack>
      </form>
    </Modal>
  );
}

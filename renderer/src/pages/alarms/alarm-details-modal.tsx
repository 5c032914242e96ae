import {
  ActionIcon,
  Anchor,
  Button,
  Code,
  Group,
  Modal,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  Title,
} from '@mantine/core';
import { useState, type FormEvent } from 'react';
import type { AlarmCommentInfo, AlarmInfo } from '../../api/entities-api.ts';
import {
  useAckAlarm,
  useAddAlarmComment,
  useAlarmComments,
  useAlarmInfo,
  useClearAlarm,
  useDeleteAlarmComment,
} from '../../api/entities-hooks.ts';
import { useCurrentUser } from '../../api/hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDateTime, formatDuration } from '../../components/format.ts';
import { Link } from '../../router.tsx';
import { SeverityBadge, StatusBadge, originatorPath } from './alarm-badges.tsx';

const COMMENT_MAX = 4000;

function Time({ label, ts, testId }: { label: string; ts: number; testId: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" data-testid={testId} title={ts > 0 ? String(ts) : undefined}>
        {ts > 0 ? formatDateTime(ts) : '—'}
      </Text>
    </div>
  );
}

/** How long the alarm has lasted: to its clearing, or to now while it is active. */
export function alarmDuration(alarm: AlarmInfo, now: number): number {
  return Math.max(0, (alarm.cleared && alarm.clearTs > 0 ? alarm.clearTs : now) - alarm.startTs);
}

function authorOf(c: AlarmCommentInfo): string {
  if (c.type === 'SYSTEM') return 'System';
  if (c.firstName && c.lastName) return `${c.firstName} ${c.lastName}`;
  return c.email ?? 'a deleted user';
}

function Comments({ alarmId }: { alarmId: string }) {
  const comments = useAlarmComments(alarmId);
  const add = useAddAlarmComment(alarmId);
  const remove = useDeleteAlarmComment(alarmId);
  const me = useCurrentUser();
  const [text, setText] = useState('');
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim()) return;
    add.mutate(text.trim(), { onSuccess: () => setText('') });
  };
  const list = comments.data?.data ?? [];
  return (
    <Stack gap="xs">
      <Title order={5}>Comments</Title>
      <ErrorAlert error={comments.error ?? add.error ?? remove.error} title="Comments" />
      <Stack gap={6} data-testid="alarm-comments">
        {comments.data && list.length === 0 && (
          <Text size="sm" c="dimmed">
            No comments yet.
          </Text>
        )}
        {list.map((c) => (
          <Paper key={c.id.id} withBorder radius="sm" p="xs" data-testid="alarm-comment" data-type={c.type}>
            <Group justify="space-between" gap="xs" wrap="nowrap" align="flex-start">
              <div style={{ minWidth: 0 }}>
                <Text size="xs" c="dimmed">
                  {authorOf(c)} · {formatDateTime(c.createdTime)}
                  {c.comment.edited === 'true' ? ' · edited' : ''}
                </Text>
                <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                  {typeof c.comment.text === 'string' ? c.comment.text : JSON.stringify(c.comment)}
                </Text>
              </div>
              {c.type === 'OTHER' && c.userId?.id === me.data?.id.id && (
                <ActionIcon
                  variant="subtle"
                  color="red"
                  size="sm"
                  aria-label="Delete comment"
                  loading={remove.isPending && remove.variables === c.id.id}
                  onClick={() => remove.mutate(c.id.id)}
                >
                  ×
                </ActionIcon>
              )}
            </Group>
          </Paper>
        ))}
      </Stack>
      <form onSubmit={onSubmit} aria-label="Add a comment">
        <Stack gap={6}>
          <Textarea
            aria-label="Comment"
            placeholder="Add a comment…"
            autosize
            minRows={2}
            maxRows={6}
            maxLength={COMMENT_MAX}
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) onSubmit(e);
            }}
            data-testid="alarm-comment-text"
          />
          <Group justify="flex-end">
            <Button
              type="submit"
              size="compact-sm"
              loading={add.isPending}
              disabled={!text.trim()}
              data-testid="alarm-comment-add"
            >
              Comment
            </Button>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}

/** One alarm: what raised it, when, for how long, its details and comments; acknowledge and clear. */
export function AlarmDetailsModal({ opened, onClose }: { opened: AlarmInfo | null; onClose: () => void }) {
  const ack = useAckAlarm();
  const clear = useClearAlarm();
  // read again by id: a cleared alarm leaves a list of active ones, and its details must follow it
  const info = useAlarmInfo(opened?.id.id ?? null, opened ?? undefined);
  const a = opened ? (info.data ?? opened) : null;
  const path = a ? originatorPath(a) : null;
  const name = a ? (a.originatorName ?? a.originator.id) : '';
  return (
    <Modal
      opened={a !== null}
      onClose={onClose}
      size="lg"
      title={a ? `${a.type}` : ''}
      data-testid="alarm-details"
    >
      {a && (
        <Stack gap="sm" data-testid="alarm-details-body" data-alarm-id={a.id.id}>
          <Group gap="xs">
            <SeverityBadge severity={a.severity} />
            <StatusBadge alarm={a} />
          </Group>
          <div>
            <Text size="xs" c="dimmed">
              Originator ({a.originator.entityType.toLowerCase()})
            </Text>
            {path ? (
              <Anchor component={Link} to={path} size="sm" data-testid="alarm-originator" onClick={onClose}>
                {name}
              </Anchor>
            ) : (
              <Text size="sm" data-testid="alarm-originator">
                {name}
              </Text>
            )}
          </div>
          <SimpleGrid cols={{ base: 2, sm: 3 }} spacing="xs">
            <Time label="Started" ts={a.startTs} testId="alarm-start" />
            <Time label="Last raised" ts={a.endTs} testId="alarm-end" />
            <div>
              <Text size="xs" c="dimmed">
                Duration
              </Text>
              <Text size="sm" data-testid="alarm-duration">
                {formatDuration(Math.max(1000, alarmDuration(a, Date.now())))}
                {a.cleared ? '' : ' so far'}
              </Text>
            </div>
            <Time label="Acknowledged" ts={a.ackTs} testId="alarm-ack-time" />
            <Time label="Cleared" ts={a.clearTs} testId="alarm-clear-time" />
            {a.assignee && (
              <div>
                <Text size="xs" c="dimmed">
                  Assignee
                </Text>
                <Text size="sm">{a.assignee.email}</Text>
              </div>
            )}
          </SimpleGrid>
          <div>
            <Text size="xs" c="dimmed">
              Details
            </Text>
            <Code block data-testid="alarm-details-json" style={{ maxHeight: 220, overflow: 'auto' }}>
              {JSON.stringify(a.details ?? {}, null, 2)}
            </Code>
          </div>
          <ErrorAlert error={ack.error ?? clear.error} title="The alarm could not be changed" />
          <Group gap="xs">
            {!a.acknowledged && (
              <Button
                size="compact-sm"
                variant="light"
                loading={ack.isPending}
                onClick={() => ack.mutate(a.id.id)}
                data-testid="alarm-details-ack"
              >
                Acknowledge
              </Button>
            )}
            {!a.cleared && (
              <Button
                size="compact-sm"
                variant="light"
                color="red"
                loading={clear.isPending}
                onClick={() => clear.mutate(a.id.id)}
                data-testid="alarm-details-clear"
              >
                Clear
              </Button>
            )}
          </Group>
          <Comments alarmId={a.id.id} />
        </Stack>
      )}
    </Modal>
  );
}

import { Button, Popover, Stack, Switch, Text } from '@mantine/core';
import { useSetDashboardPublic } from '../../api/dashboards-hooks.ts';
import { CopyValue } from '../../components/copy-value.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import type { Dashboard } from './dashboard-model.ts';
import { publicLinkOf } from './public-dashboard-link.ts';

/** Makes the dashboard public or private again, and shows its public link to copy. */
export function PublicLinkMenu({ dashboard }: { dashboard: Dashboard }) {
  const mutation = useSetDashboardPublic();
  const link = publicLinkOf(dashboard, window.location.origin);
  const id = dashboard.id?.id;
  if (!id) return null;
  return (
    <Popover width={460} position="bottom-end" withArrow shadow="md">
      <Popover.Target>
        <Button size="xs" variant="default" data-testid="public-link">
          {link ? 'Public link' : 'Share'}
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap="xs">
          <Switch
            label="Public: anyone with the link sees it live, read-only, without a login"
            checked={link !== null}
            disabled={mutation.isPending}
            onChange={(e) => mutation.mutate({ id, isPublic: e.currentTarget.checked })}
            data-testid="public-switch"
          />
          {link && <CopyValue value={link} label="Copy the public link" testId="public-link-url" />}
          <Text size="xs" c="dimmed">
            Its widgets show the devices and assets assigned to the public customer (ThingsBoard&apos;s
            &quot;make public&quot;, <code>POST /api/customer/public/device/{'{id}'}</code>).
          </Text>
          <ErrorAlert error={mutation.error} />
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}

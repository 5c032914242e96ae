import { Button, Menu, Text } from '@mantine/core';
import { useState } from 'react';
import { useApi, useSession } from '../api/api-context.tsx';
import { navigate } from '../router.tsx';
import { UiScaleControl, useUserUiScale } from './ui-scale-control.tsx';

export const ROLE_NAMES: Record<string, string> = {
  TENANT_ADMIN: 'Tenant administrator',
  CUSTOMER_USER: 'Customer user',
};

/** Who is logged in, with the way to the Security page and out. */
export function UserMenu() {
  const client = useApi();
  const session = useSession();
  const [busy, setBusy] = useState(false);
  const chooseScale = useUserUiScale();
  if (!session) return null;
  const logout = async () => {
    setBusy(true);
    try {
      await client.logout();
    } finally {
      setBusy(false);
    }
  };
  return (
    <Menu position="bottom-end" withArrow closeOnItemClick>
      <Menu.Target>
        <Button variant="default" loading={busy} data-testid="user-menu">
          {session.email}
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>
          <Text size="xs">{ROLE_NAMES[session.authority] ?? session.authority}</Text>
        </Menu.Label>
        <Menu.Item onClick={() => navigate('/security')}>Security and API keys</Menu.Item>
        <Menu.Divider />
        <UiScaleControl onChange={chooseScale} />
        <Menu.Divider />
        <Menu.Item color="red" onClick={() => void logout()} data-testid="logout">
          Log out
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

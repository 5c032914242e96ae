import { Stack } from '@mantine/core';
import { PageHeader } from '../../components/page-header.tsx';
import { ApiKeysCard } from './api-keys-card.tsx';
import { ChangePasswordCard } from './change-password-card.tsx';
import { SessionCard } from './session-card.tsx';

export default function SecurityPage() {
  return (
    <Stack gap="lg">
      <PageHeader title="Security" description="Your session, your API keys and your password." />
      <SessionCard />
      <ApiKeysCard />
      <ChangePasswordCard />
    </Stack>
  );
}

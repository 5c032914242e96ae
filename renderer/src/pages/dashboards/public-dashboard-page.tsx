import { Box, Center, Loader } from '@mantine/core';
import { useEffect, useState } from 'react';
import { NULL_UUID } from '../../../../shared/schemas/common.ts';
import { useApi, useSession } from '../../api/api-context.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import DashboardPage from './dashboard-page.tsx';

/**
 * A public dashboard, opened without a login: the page logs in as the public customer's user
 * (POST /api/auth/login/public) and shows the dashboard alone, read-only.
 */
export default function PublicDashboardPage({ id, publicId }: { id: string; publicId: string }) {
  const client = useApi();
  const session = useSession();
  const [error, setError] = useState<unknown>(null);
  const signedIn = session?.userId === NULL_UUID && session.email === publicId.toLowerCase();
  useEffect(() => {
    if (!signedIn) client.loginPublic(publicId).catch(setError);
  }, [client, publicId, signedIn]);
  if (error)
    return (
      <Box p="md">
        <ErrorAlert error={error} title="This public link does not open" />
      </Box>
    );
  if (!signedIn)
    return (
      <Center mih="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  return (
    <Box p="md">
      <DashboardPage params={{ id }} publicView />
    </Box>
  );
}

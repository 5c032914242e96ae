import { Anchor, Box, Group, Text, useComputedColorScheme } from '@mantine/core';
import { useCallback, useEffect, useRef } from 'react';
import { useSession } from '../api/api-context.tsx';
import { PageHeader } from '../components/page-header.tsx';

const EXPLORER_PATH = '/swagger-ui/';

/**
 * The Swagger UI of the REST API, signed in with this session: it reads the session from sessionStorage
 * (shared with same-origin frames) when it loads, and gets each refreshed token, and the app's theme,
 * by postMessage.
 */
export default function ApiExplorerPage() {
  const session = useSession();
  const scheme = useComputedColorScheme('light');
  const frame = useRef<HTMLIFrameElement>(null);
  const token = session?.token;

  const tell = useCallback(() => {
    const target = frame.current?.contentWindow;
    if (!target) return;
    if (token) target.postMessage({ type: 'sandboard:session', token }, window.location.origin);
    target.postMessage({ type: 'sandboard:theme', scheme }, window.location.origin);
  }, [token, scheme]);
  useEffect(tell, [tell]);

  return (
    <Box
      style={{
        display: 'flex',
        flexDirection: 'column',
        height: 'calc(100dvh - 56px - 2 * var(--mantine-spacing-lg))',
      }}
    >
      <PageHeader
        title="API Explorer"
        description={
          <Group gap={6} component="span">
            <Text span size="sm">
              Every REST endpoint, signed in as you. Try it out, then Execute.
            </Text>
            <Anchor href="/v3/api-docs" target="_blank" rel="noreferrer" size="sm">
              OpenAPI document
            </Anchor>
          </Group>
        }
      />
      <Box
        component="iframe"
        ref={frame}
        src={EXPLORER_PATH}
        title="API explorer"
        data-testid="api-explorer-frame"
        onLoad={tell}
        style={{
          flex: 1,
          minHeight: 480,
          width: '100%',
          border: '1px solid var(--mantine-color-default-border)',
          borderRadius: 'var(--mantine-radius-md)',
          background: 'var(--mantine-color-body)',
        }}
      />
    </Box>
  );
}

import { Alert, Button, Stack, Text } from '@mantine/core';
import { Component, type ErrorInfo, type ReactNode } from 'react';

interface State {
  error: Error | null;
}

/** Keeps a failing page (or a chunk that failed to load) from blanking the whole app. */
export class ErrorBoundary extends Component<{ children: ReactNode; resetKey?: string }, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  override componentDidUpdate(prev: { resetKey?: string }): void {
    if (prev.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: null });
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('page failed', error, info.componentStack);
  }

  override render(): ReactNode {
    if (!this.state.error) return this.props.children;
    return (
      <Alert color="red" title="This page failed to load" role="alert">
        <Stack gap="sm" align="flex-start">
          <Text size="sm">{this.state.error.message}</Text>
          <Button size="xs" variant="light" onClick={() => window.location.reload()}>
            Reload
          </Button>
        </Stack>
      </Alert>
    );
  }
}

import { ActionIcon, Group, Paper, Stack, Text } from '@mantine/core';
import { Component, type ErrorInfo, type ReactNode } from 'react';
import { widgetFqn, type Widget } from './dashboard-model.ts';
import { widgetKind } from './widget-kinds.ts';
import { WIDGET_COMPONENTS } from './widget-registry.tsx';

/** One widget failing to render shows why in its own frame; the rest of the dashboard goes on. */
class WidgetBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state = { error: null as Error | null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('widget failed', error, info.componentStack);
  }
  override render(): ReactNode {
    if (!this.state.error) return this.props.children;
    return (
      <Text size="sm" c="red" p="xs">
        This widget failed: {this.state.error.message}
      </Text>
    );
  }
}

/** What a widget of a type Sandboard does not render shows: its FQN, so the user knows which one. */
export function UnknownWidget({ fqn }: { fqn: string }) {
  return (
    <Stack
      gap={4}
      h="100%"
      justify="center"
      p={4}
      data-testid="unknown-widget"
      data-fqn={fqn}
      style={{ overflow: 'hidden' }}
    >
      <Text size="xs" c="dimmed">
        Not rendered by Sandboard:
      </Text>
      <Text ff="monospace" size="xs" style={{ wordBreak: 'break-all' }}>
        {fqn}
      </Text>
    </Stack>
  );
}

export function WidgetBody({ widget }: { widget: Widget }) {
  const fqn = widgetFqn(widget);
  const kind = widgetKind(fqn);
  if (!kind) return <UnknownWidget fqn={fqn} />;
  const Body = WIDGET_COMPONENTS[kind.renderer];
  return (
    <WidgetBoundary>
      <Body widget={widget} />
    </WidgetBoundary>
  );
}

/** A widget's card: its title (unless hidden) over its body, with the editor's buttons while editing. */
export function WidgetFrame({
  widget,
  editing,
  onEdit,
  onRemove,
}: {
  widget: Widget;
  editing: boolean;
  onEdit?: () => void;
  onRemove?: () => void;
}) {
  const title = widget.config.showTitle === false ? '' : (widget.config.title ?? '');
  return (
    <Paper
      withBorder
      radius="sm"
      h="100%"
      p={6}
      style={{ display: 'flex', flexDirection: 'column', overflow: 'hidden' }}
      data-testid="widget"
      data-fqn={widgetFqn(widget)}
      data-title={widget.config.title ?? ''}
    >
      {(title || editing) && (
        <Group justify="space-between" wrap="nowrap" gap={4} mb={4}>
          <Text
            size="sm"
            fw={600}
            lineClamp={1}
            style={{ overflowWrap: 'anywhere' }}
            title={title || undefined}
          >
            {title || widgetKind(widgetFqn(widget))?.name || widgetFqn(widget)}
          </Text>
          {editing && (
            <Group gap={2} wrap="nowrap">
              <ActionIcon
                size="sm"
                variant="subtle"
                aria-label={`Edit ${title || 'widget'}`}
                onClick={onEdit}
                data-testid="edit-widget"
              >
                ✎
              </ActionIcon>
              <ActionIcon
                size="sm"
                variant="subtle"
                color="red"
                aria-label={`Remove ${title || 'widget'}`}
                onClick={onRemove}
                data-testid="remove-widget"
              >
                ✕
              </ActionIcon>
            </Group>
          )}
        </Group>
      )}
      <div style={{ flex: 1, minHeight: 0, position: 'relative' }}>
        <WidgetBody widget={widget} />
      </div>
    </Paper>
  );
}

import { Center, Text } from '@mantine/core';

/** What a widget shows instead of its data: loading, nothing to show, or why not. */
export function WidgetMessage({ text, tone }: { text: string; tone?: 'error' }) {
  return (
    <Center h="100%" p="xs">
      <Text size="sm" c={tone === 'error' ? 'red' : 'dimmed'} ta="center" data-testid="widget-message">
        {text}
      </Text>
    </Center>
  );
}

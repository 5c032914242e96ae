import { ActionIcon, Code, CopyButton, Group, Text, Tooltip } from '@mantine/core';
import { CODE_WRAP_STYLE, WrapAtSeparators } from './code-wrap.tsx';
import { CheckIcon, CopyIcon } from './icons.tsx';

/** A button that copies a value to the clipboard, and says so. */
export function CopyValueButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  return (
    <CopyButton value={value} timeout={1500}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? 'Copied' : label} withArrow position="left">
          <ActionIcon
            variant="subtle"
            color={copied ? 'teal' : 'gray'}
            onClick={copy}
            aria-label={copied ? 'Copied' : label}
          >
            {copied ? <CheckIcon /> : <CopyIcon />}
          </ActionIcon>
        </Tooltip>
      )}
    </CopyButton>
  );
}

/** A value shown in monospace with a copy button: a token, a URL, a command. */
export function CopyValue({
  value,
  shown = value,
  label,
  block = false,
  testId,
}: {
  value: string;
  /** what is shown when it differs from what is copied (a command with its secret masked) */
  shown?: string;
  /** what the copy button copies, e.g. "Copy access token" */
  label?: string;
  /** multi-line commands */
  block?: boolean;
  testId?: string;
}) {
  return (
    <Group gap="xs" wrap="nowrap" align={block ? 'flex-start' : 'center'}>
      {block ? (
        <Code block style={{ flex: 1, minWidth: 0, ...CODE_WRAP_STYLE }} data-testid={testId}>
          <WrapAtSeparators text={shown} />
        </Code>
      ) : (
        <Text
          component="code"
          ff="monospace"
          size="sm"
          style={{ flex: 1, minWidth: 0, ...CODE_WRAP_STYLE }}
          data-testid={testId}
        >
          <WrapAtSeparators text={shown} />
        </Text>
      )}
      <CopyValueButton value={value} label={label} />
    </Group>
  );
}

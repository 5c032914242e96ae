/**
 * A JSON editor (CodeMirror 6): line numbers, JSON syntax errors and the caller's schema issues as
 * diagnostics at their JSON paths (also listed under the editor: a click jumps there), key and value
 * completion from a JSON Schema (Ctrl+Space, or as a key or string value is typed), and the path and
 * description of the field under the cursor. Tab indents (or takes a suggestion); Escape leaves the
 * editor for the status line, so Tab goes on from there.
 *
 * CodeMirror is imported here only, so it loads with the (lazy) pages that show this editor. Its
 * injected styles need style-src 'unsafe-inline', which the UI's CSP allows.
 */
import { startCompletion } from '@codemirror/autocomplete';
import { forceLinting } from '@codemirror/lint';
import { Compartment, EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import {
  ActionIcon,
  Badge,
  Group,
  Stack,
  Text,
  Tooltip,
  UnstyledButton,
  useComputedColorScheme,
} from '@mantine/core';
import {
  useCallback,
  useEffect,
  useImperativeHandle,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type Ref,
} from 'react';
import { formatPath, parsePath } from '../../../components/json-path.ts';
import { baseExtensions, editorTheme, externalChange, type SchemaIssue } from './codemirror-setup.ts';
import { describeAt } from './json-schema-complete.ts';
import { lineColumn, locateInTree, parseErrorOffset, parseWithPositions, pathAt } from './json-text.ts';

export interface JsonEditorIssue {
  /** JSON path, e.g. mapping[0].converter.type ('' is the whole document) */
  path: string;
  message: string;
  severity: 'error' | 'warning';
}

export interface JsonEditorHandle {
  /** puts the cursor on the key (else the value) at a JSON path and scrolls to it */
  revealPath(path: string): void;
  focus(): void;
}

export interface JsonEditorProps {
  value: string;
  onChange(value: string): void;
  /** JSON Schema for completion and descriptions */
  schema?: unknown;
  /** the caller's validation of the parsed value (not shown while the text is not JSON) */
  issues?: JsonEditorIssue[];
  readOnly?: boolean;
  /** accessible name of the text area */
  label: string;
  height?: number;
  testId?: string;
  ref?: Ref<JsonEditorHandle>;
}

const MAX_ISSUES_SHOWN = 50;

/** The attributes of the editable element: its accessible name and test id. */
function contentAttributes(label: string, testId: string | undefined) {
  return EditorView.contentAttributes.of({
    'aria-label': label,
    ...(testId ? { 'data-testid': `${testId}-text` } : {}),
  });
}

/** The change that turns `from` into `to`, as small as their common start and end allow (the cursor stays). */
function diff(from: string, to: string) {
  let start = 0;
  const max = Math.min(from.length, to.length);
  while (start < max && from.charCodeAt(start) === to.charCodeAt(start)) start++;
  let end = 0;
  while (end < max - start && from.charCodeAt(from.length - 1 - end) === to.charCodeAt(to.length - 1 - end))
    end++;
  return { from: start, to: from.length - end, insert: to.slice(start, to.length - end) };
}

export function JsonEditor({
  value,
  onChange,
  schema,
  issues = [],
  readOnly = false,
  label,
  height = 460,
  testId,
  ref,
}: JsonEditorProps) {
  const scheme = useComputedColorScheme('light');
  const host = useRef<HTMLDivElement>(null);
  const status = useRef<HTMLParagraphElement>(null);
  const [view, setView] = useState<EditorView | null>(null);
  const [caret, setCaret] = useState(0);
  const compartments = useMemo(
    () => ({ theme: new Compartment(), readOnly: new Compartment(), attributes: new Compartment() }),
    [],
  );
  // what the editor's extensions read at the time they run
  const latest = useRef({
    value,
    onChange,
    schema,
    issues: issues as SchemaIssue[],
    readOnly,
    scheme,
    label,
    testId,
  });
  useLayoutEffect(() => {
    latest.current = { value, onChange, schema, issues, readOnly, scheme, label, testId };
  });

  // --- the CodeMirror view (made once; its options follow the props through compartments) ------------
  useLayoutEffect(() => {
    const parent = host.current;
    if (!parent) return;
    const l = latest.current;
    const v = new EditorView({
      parent,
      state: EditorState.create({
        doc: l.value,
        extensions: [
          baseExtensions({
            issues: () => latest.current.issues,
            schema: () => latest.current.schema,
            readOnly: () => latest.current.readOnly,
            leave: () => status.current?.focus(),
            onUpdate: (update) => {
              if (update.docChanged || update.selectionSet) setCaret(update.state.selection.main.head);
              if (update.docChanged && !update.transactions.some((tr) => tr.annotation(externalChange)))
                latest.current.onChange(update.state.doc.toString());
            },
          }),
          compartments.theme.of(editorTheme(l.scheme === 'dark')),
          compartments.readOnly.of(EditorState.readOnly.of(l.readOnly)),
          compartments.attributes.of(contentAttributes(l.label, l.testId)),
        ],
      }),
    });
    // for end-to-end tests: CodeMirror keeps only the lines in view in the DOM, this is the whole text
    Object.defineProperty(v.contentDOM, 'editorText', { get: () => v.state.doc.toString() });
    // the suggestion list, as tests and the old editor named it
    const label = new MutationObserver(() => {
      const list = v.dom.querySelector('.cm-tooltip-autocomplete:not([data-testid])');
      list?.setAttribute('data-testid', 'json-completions');
    });
    label.observe(v.dom, { childList: true, subtree: true });
    setView(v);
    return () => {
      label.disconnect();
      v.destroy();
      setView(null);
    };
  }, [compartments]);

  useEffect(() => {
    if (!view) return;
    const current = view.state.doc.toString();
    if (current === value) return;
    view.dispatch({ changes: diff(current, value), annotations: externalChange.of(true) });
  }, [view, value]);

  useEffect(() => {
    view?.dispatch({ effects: compartments.theme.reconfigure(editorTheme(scheme === 'dark')) });
  }, [view, scheme, compartments]);

  useEffect(() => {
    view?.dispatch({ effects: compartments.readOnly.reconfigure(EditorState.readOnly.of(readOnly)) });
  }, [view, readOnly, compartments]);

  useEffect(() => {
    view?.dispatch({ effects: compartments.attributes.reconfigure(contentAttributes(label, testId)) });
  }, [view, label, testId, compartments]);

  useEffect(() => {
    if (view) forceLinting(view);
  }, [view, issues, schema]);

  // --- parsing, issues (the list under the editor) ----------------------------------------------------
  const parsed = useMemo(() => {
    try {
      JSON.parse(value);
      return { error: null as null | { message: string; offset: number | null } };
    } catch (err) {
      const message = (err as Error).message;
      const offset = parseErrorOffset(message, value) ?? parseWithPositions(value).errorAt;
      return { error: { message, offset } };
    }
  }, [value]);

  const located = useMemo(() => {
    const tree = parsed.error ? null : parseWithPositions(value).root;
    return issues.map((issue) => {
      const offset = tree ? locateInTree(tree, parsePath(issue.path)) : null;
      return { ...issue, offset, line: offset === null ? null : lineColumn(value, offset).line };
    });
  }, [issues, value, parsed.error]);

  // --- moving the cursor -------------------------------------------------------------------------------
  const revealOffset = useCallback(
    (offset: number) => {
      if (!view) return;
      const at = Math.min(offset, view.state.doc.length);
      view.dispatch({
        selection: { anchor: at },
        effects: EditorView.scrollIntoView(at, { y: 'center', x: 'nearest' }),
      });
      view.focus();
      host.current?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
    },
    [view],
  );

  const revealPath = useCallback(
    (path: string) => {
      if (!view) return;
      const tree = parseWithPositions(view.state.doc.toString()).root;
      if (!tree) return;
      revealOffset(locateInTree(tree, parsePath(path)));
    },
    [view, revealOffset],
  );

  useImperativeHandle(ref, () => ({ revealPath, focus: () => view?.focus() }), [revealPath, view]);

  // --- the field under the cursor ----------------------------------------------------------------------
  const position = useMemo(() => lineColumn(value, caret), [value, caret]);
  const here = useMemo(() => {
    const path = pathAt(value, caret);
    return { path: formatPath(path), description: schema === undefined ? null : describeAt(schema, path) };
  }, [value, caret, schema]);

  const errors = located.filter((i) => i.severity === 'error');
  const warnings = located.filter((i) => i.severity === 'warning');

  return (
    <Stack gap={6} data-testid={testId}>
      <div
        ref={host}
        style={{
          height,
          border: `1px solid ${parsed.error || errors.length ? 'var(--mantine-color-red-filled)' : 'var(--mantine-color-default-border)'}`,
          borderRadius: 'var(--mantine-radius-md)',
          overflow: 'hidden',
        }}
      />

      <Group gap="xs" wrap="nowrap" justify="space-between">
        <Text
          ref={status}
          tabIndex={-1}
          size="xs"
          c="dimmed"
          ff="monospace"
          style={{ minWidth: 0 }}
          lineClamp={1}
          data-testid={testId ? `${testId}-cursor` : undefined}
        >
          Ln {position.line + 1}, Col {position.column + 1}
          {here.path ? ` · ${here.path}` : ''}
          {here.description ? ` — ${here.description}` : ''}
        </Text>
        {schema !== undefined && !readOnly && (
          <Tooltip label="Suggest keys and values here (Ctrl+Space)" withArrow>
            <ActionIcon
              size="sm"
              variant="subtle"
              aria-label="Suggest keys and values"
              onMouseDown={(e) => {
                e.preventDefault();
                if (!view) return;
                view.focus();
                startCompletion(view);
              }}
              onClick={() => {
                // the keyboard's way in (a mouse press has already opened the list)
                if (!view || view.hasFocus) return;
                view.focus();
                startCompletion(view);
              }}
            >
              <Text size="xs" fw={700}>
                {'{…}'}
              </Text>
            </ActionIcon>
          </Tooltip>
        )}
      </Group>

      {parsed.error ? (
        <IssueButton
          severity="error"
          path={
            parsed.error.offset === null ? 'JSON' : `line ${lineColumn(value, parsed.error.offset).line + 1}`
          }
          message={`Not valid JSON: ${parsed.error.message}`}
          onClick={() => {
            if (parsed.error?.offset != null) revealOffset(parsed.error.offset);
          }}
          testId="json-parse-error"
        />
      ) : (
        (errors.length > 0 || warnings.length > 0) && (
          <Stack gap={2} data-testid={testId ? `${testId}-issues` : undefined}>
            {[...errors, ...warnings].slice(0, MAX_ISSUES_SHOWN).map((i, n) => (
              <IssueButton
                key={`${n}-${i.path}-${i.message}`}
                severity={i.severity}
                path={i.path || '(document)'}
                message={i.message}
                line={i.line}
                onClick={() => (i.offset === null ? undefined : revealOffset(i.offset))}
              />
            ))}
            {errors.length + warnings.length > MAX_ISSUES_SHOWN && (
              <Text size="xs" c="dimmed">
                and {errors.length + warnings.length - MAX_ISSUES_SHOWN} more
              </Text>
            )}
          </Stack>
        )
      )}
    </Stack>
  );
}

function IssueButton({
  severity,
  path,
  message,
  line,
  onClick,
  testId,
}: {
  severity: 'error' | 'warning';
  path: string;
  message: string;
  line?: number | null;
  onClick: () => void;
  testId?: string;
}) {
  return (
    <UnstyledButton
      onClick={onClick}
      data-testid={testId ?? `json-issue-${severity}`}
      data-path={path}
      style={{ borderRadius: 4 }}
      px={6}
      py={2}
      title="Show in the editor"
    >
      <Group gap={6} wrap="nowrap" align="flex-start">
        <Badge
          size="xs"
          variant="light"
          color={severity === 'error' ? 'red' : 'yellow'}
          mt={2}
          style={{ flex: 'none' }}
        >
          {severity}
        </Badge>
        <Text size="xs">
          <Text span ff="monospace" fw={600} size="xs">
            {path}
          </Text>
          {line !== undefined && line !== null ? (
            <Text span c="dimmed" size="xs">
              {' '}
              (line {line + 1})
            </Text>
          ) : null}
          : {message}
        </Text>
      </Group>
    </UnstyledButton>
  );
}

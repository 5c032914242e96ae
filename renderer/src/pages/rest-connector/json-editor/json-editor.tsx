/**
 * A JSON editor: monospace text with line numbers, live parsing, the caller's schema issues (each with
 * its JSON path: the line is marked, a click jumps to it), key and value completion from a JSON Schema
 * (Ctrl+Space, or as a key is typed) and the description of the field under the cursor.
 *
 * It is a <textarea> for now; its props and handle are what a CodeMirror editor would take, so swapping
 * one in later replaces this file only.
 */
import {
  ActionIcon,
  Badge,
  Group,
  Paper,
  ScrollArea,
  Stack,
  Text,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import {
  useCallback,
  useEffect,
  useImperativeHandle,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type ChangeEvent,
  type KeyboardEvent,
  type Ref,
} from 'react';
import { formatPath, parsePath } from '../../../components/json-path.ts';
import { completionsAt, describeAt, type Completion } from './json-schema-complete.ts';
import {
  contextAt,
  lineColumn,
  lineStartOffset,
  locateInTree,
  parseErrorOffset,
  parseWithPositions,
  pathAt,
  type CursorContext,
} from './json-text.ts';

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

const LINE_HEIGHT = 20;
const FONT_SIZE = 13;
const PAD_X = 10;
const PAD_Y = 8;
const MAX_ISSUES_SHOWN = 50;

interface Popup {
  ctx: CursorContext;
  items: Completion[];
  index: number;
}

/** Inserts text as typing would (the browser's undo keeps working), else sets the value. */
function insertText(
  ta: HTMLTextAreaElement,
  from: number,
  to: number,
  text: string,
  onChange: (v: string) => void,
) {
  ta.focus();
  ta.setSelectionRange(from, to);
  const done = typeof document.execCommand === 'function' && document.execCommand('insertText', false, text);
  if (!done) {
    const next = ta.value.slice(0, from) + text + ta.value.slice(to);
    ta.value = next;
    onChange(next);
  }
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
  const ta = useRef<HTMLTextAreaElement>(null);
  const measure = useRef<HTMLSpanElement>(null);
  const [charWidth, setCharWidth] = useState(7.8);
  const [scroll, setScroll] = useState({ top: 0, left: 0 });
  const [caret, setCaret] = useState(0);
  const [popup, setPopup] = useState<Popup | null>(null);
  const pendingCaret = useRef<number | null>(null);

  useLayoutEffect(() => {
    const m = () => {
      const w = measure.current?.getBoundingClientRect().width;
      if (w) setCharWidth(w / 100);
    };
    m();
    void document.fonts?.ready.then(m);
  }, []);

  useLayoutEffect(() => {
    if (pendingCaret.current !== null && ta.current) {
      ta.current.setSelectionRange(pendingCaret.current, pendingCaret.current);
      pendingCaret.current = null;
    }
  });

  // --- parsing, issues by line -------------------------------------------------------------------------
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
  const lineCount = useMemo(() => value.split('\n').length, [value]);

  const located = useMemo(() => {
    const tree = parsed.error ? null : parseWithPositions(value).root;
    return issues.map((issue) => {
      const offset = tree ? locateInTree(tree, parsePath(issue.path)) : null;
      return { ...issue, offset, line: offset === null ? null : lineColumn(value, offset).line };
    });
  }, [issues, value, parsed.error]);

  const marks = useMemo(() => {
    const byLine = new Map<number, { severity: 'error' | 'warning'; messages: string[] }>();
    const add = (line: number, severity: 'error' | 'warning', message: string) => {
      const m = byLine.get(line) ?? { severity, messages: [] };
      if (severity === 'error') m.severity = 'error';
      m.messages.push(message);
      byLine.set(line, m);
    };
    if (parsed.error) {
      if (parsed.error.offset !== null)
        add(lineColumn(value, parsed.error.offset).line, 'error', parsed.error.message);
    } else
      for (const i of located)
        if (i.line !== null) add(i.line, i.severity, `${i.path || '(document)'}: ${i.message}`);
    return byLine;
  }, [located, parsed.error, value]);

  // --- moving the cursor -------------------------------------------------------------------------------
  const revealOffset = useCallback(
    (offset: number) => {
      const el = ta.current;
      if (!el) return;
      el.focus({ preventScroll: true });
      el.setSelectionRange(offset, offset);
      setCaret(offset);
      const { line, column } = lineColumn(el.value, offset);
      el.scrollTop = Math.max(0, line * LINE_HEIGHT - el.clientHeight / 3);
      el.scrollLeft = Math.max(0, column * charWidth - el.clientWidth / 2);
      el.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
    },
    [charWidth],
  );

  const revealPath = useCallback(
    (path: string) => {
      const el = ta.current;
      if (!el) return;
      const tree = parseWithPositions(el.value).root;
      if (!tree) return;
      revealOffset(locateInTree(tree, parsePath(path)));
    },
    [revealOffset],
  );

  useImperativeHandle(ref, () => ({ revealPath, focus: () => ta.current?.focus() }), [revealPath]);

  // --- completion --------------------------------------------------------------------------------------
  const openCompletion = useCallback(
    (explicit: boolean) => {
      const el = ta.current;
      if (!el || readOnly || schema === undefined) return;
      const offset = el.selectionStart;
      // the list opens under the cursor: bring the cursor's line into view first
      const { line, column } = lineColumn(el.value, offset);
      const y = line * LINE_HEIGHT;
      if (y < el.scrollTop || y + LINE_HEIGHT + 2 * PAD_Y > el.scrollTop + el.clientHeight)
        el.scrollTop = Math.max(0, y - el.clientHeight / 3);
      const x = column * charWidth;
      if (x < el.scrollLeft || x + 2 * PAD_X > el.scrollLeft + el.clientWidth)
        el.scrollLeft = Math.max(0, x - el.clientWidth / 2);
      setScroll({ top: el.scrollTop, left: el.scrollLeft });
      const ctx = contextAt(el.value, offset);
      const items = completionsAt(schema, ctx);
      if (items.length === 0 || (!explicit && ctx.mode === 'none')) {
        setPopup(null);
        return;
      }
      setPopup((prev) => ({
        ctx,
        items,
        index: prev && prev.items[prev.index] ? Math.min(prev.index, items.length - 1) : 0,
      }));
    },
    [readOnly, schema, charWidth],
  );

  const accept = (item: Completion) => {
    const el = ta.current;
    if (!el || !popup) return;
    const { from, to } = popup.ctx;
    insertText(el, from, to, item.insert, onChange);
    let cursor = from + item.cursor;
    if (item.commaAt !== null && item.commaAt <= from) {
      insertText(el, item.commaAt, item.commaAt, ',', onChange);
      cursor += 1;
    }
    el.setSelectionRange(cursor, cursor);
    pendingCaret.current = cursor;
    setCaret(cursor);
    setPopup(null);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    const el = e.currentTarget;
    if ((e.ctrlKey || e.metaKey) && (e.key === ' ' || e.code === 'Space')) {
      e.preventDefault();
      openCompletion(true);
      return;
    }
    if (popup) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        const d = e.key === 'ArrowDown' ? 1 : -1;
        setPopup({ ...popup, index: (popup.index + d + popup.items.length) % popup.items.length });
        return;
      }
      if (e.key === 'Enter' || e.key === 'Tab') {
        const item = popup.items[popup.index];
        if (item) {
          e.preventDefault();
          accept(item);
          return;
        }
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        setPopup(null);
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.ctrlKey && !e.metaKey && !e.altKey && !readOnly) {
      // keep the indentation; one level more after { or [
      const start = el.selectionStart;
      const end = el.selectionEnd;
      const lineStart = lineStartOffset(el.value, start);
      const indent = /^[ \t]*/.exec(el.value.slice(lineStart, start))![0];
      const before = el.value.slice(0, start).trimEnd().at(-1);
      const after = el.value.slice(end).trimStart()[0];
      const opens = before === '{' || before === '[';
      e.preventDefault();
      if (
        opens &&
        (after === '}' || after === ']') &&
        el.value.slice(end).match(/^\s*/)![0].indexOf('\n') === -1
      ) {
        insertText(el, start, end, `\n${indent}  \n${indent}`, onChange);
        const pos = start + indent.length + 3;
        el.setSelectionRange(pos, pos);
        pendingCaret.current = pos;
      } else insertText(el, start, end, `\n${indent}${opens ? '  ' : ''}`, onChange);
    }
  };

  const onInput = (e: ChangeEvent<HTMLTextAreaElement>) => {
    onChange(e.currentTarget.value);
    setCaret(e.currentTarget.selectionStart);
    const native = e.nativeEvent as InputEvent;
    const typed =
      native.inputType === 'insertText' && typeof native.data === 'string' && native.data.length === 1
        ? native.data
        : null;
    if (popup) {
      if (typed !== null && /[:,{}[\]]/.test(typed)) setPopup(null);
      else openCompletion(false);
      return;
    }
    if (typed === null) return;
    const ctx = contextAt(e.currentTarget.value, e.currentTarget.selectionStart);
    const inString = ctx.from < ctx.to && e.currentTarget.value[ctx.from] === '"';
    if (
      (ctx.mode === 'key' && (typed === '"' || (inString && /\w/.test(typed)))) ||
      (ctx.mode === 'value' && typed === '"')
    )
      openCompletion(false);
  };

  useEffect(() => {
    if (readOnly) setPopup(null);
  }, [readOnly]);

  // --- the field under the cursor ----------------------------------------------------------------------
  const position = useMemo(() => lineColumn(value, caret), [value, caret]);
  const here = useMemo(() => {
    const path = pathAt(value, caret);
    return { path: formatPath(path), description: schema === undefined ? null : describeAt(schema, path) };
  }, [value, caret, schema]);

  const popupPos = popup
    ? (() => {
        const { line, column } = lineColumn(value, popup.ctx.from);
        return {
          left: gutterWidth(lineCount, charWidth) + PAD_X + column * charWidth - scroll.left,
          top: PAD_Y + (line + 1) * LINE_HEIGHT - scroll.top + 2,
        };
      })()
    : null;

  const errors = located.filter((i) => i.severity === 'error');
  const warnings = located.filter((i) => i.severity === 'warning');
  const gw = gutterWidth(lineCount, charWidth);

  return (
    <Stack gap={6} data-testid={testId}>
      <div
        style={{
          position: 'relative',
          display: 'flex',
          height,
          border: `1px solid ${parsed.error || errors.length ? 'var(--mantine-color-red-filled)' : 'var(--mantine-color-default-border)'}`,
          borderRadius: 'var(--mantine-radius-md)',
          background: 'var(--mantine-color-body)',
          overflow: 'hidden',
          fontFamily: 'var(--mantine-font-family-monospace)',
          fontSize: FONT_SIZE,
          lineHeight: `${LINE_HEIGHT}px`,
        }}
      >
        <span
          ref={measure}
          aria-hidden
          style={{ position: 'absolute', visibility: 'hidden', whiteSpace: 'pre' }}
        >
          {'0'.repeat(100)}
        </span>
        <div
          aria-hidden
          style={{
            width: gw,
            flex: 'none',
            overflow: 'hidden',
            background: 'var(--mantine-color-default-hover)',
            borderRight: '1px solid var(--mantine-color-default-border)',
            color: 'var(--mantine-color-dimmed)',
            textAlign: 'right',
            userSelect: 'none',
          }}
        >
          <div style={{ transform: `translateY(${PAD_Y - scroll.top}px)` }}>
            {Array.from({ length: lineCount }, (_, i) => {
              const m = marks.get(i);
              return (
                <div
                  key={i}
                  title={m?.messages.join('\n')}
                  data-mark={m?.severity}
                  style={{
                    height: LINE_HEIGHT,
                    paddingRight: 8,
                    color: m ? 'var(--mantine-color-white)' : undefined,
                    background: m
                      ? m.severity === 'error'
                        ? 'var(--mantine-color-red-filled)'
                        : 'var(--mantine-color-yellow-filled)'
                      : undefined,
                  }}
                >
                  {i + 1}
                </div>
              );
            })}
          </div>
        </div>
        <textarea
          ref={ta}
          aria-label={label}
          value={value}
          readOnly={readOnly}
          onChange={onInput}
          onKeyDown={onKeyDown}
          onSelect={(e) => setCaret(e.currentTarget.selectionStart)}
          onScroll={(e) => setScroll({ top: e.currentTarget.scrollTop, left: e.currentTarget.scrollLeft })}
          onBlur={() => setPopup(null)}
          wrap="off"
          spellCheck={false}
          autoCapitalize="off"
          autoComplete="off"
          autoCorrect="off"
          data-testid={testId ? `${testId}-text` : undefined}
          style={{
            flex: 1,
            minWidth: 0,
            height: '100%',
            resize: 'none',
            border: 0,
            outline: 'none',
            margin: 0,
            padding: `${PAD_Y}px ${PAD_X}px`,
            font: 'inherit',
            lineHeight: 'inherit',
            whiteSpace: 'pre',
            overflow: 'auto',
            background: 'transparent',
            color: 'var(--mantine-color-text)',
            tabSize: 2,
          }}
        />
        {popup && popupPos && (
          <Paper
            shadow="md"
            withBorder
            role="listbox"
            aria-label="Suggestions"
            data-testid="json-completions"
            style={{
              position: 'absolute',
              left: Math.max(gw, Math.min(popupPos.left, 9999)),
              top: Math.min(popupPos.top, height - 40),
              zIndex: 5,
              width: 440,
              maxWidth: '80%',
            }}
          >
            <ScrollArea.Autosize mah={220} type="auto">
              {popup.items.map((item, i) => (
                <UnstyledButton
                  key={`${item.kind}-${item.label}`}
                  role="option"
                  aria-selected={i === popup.index}
                  onMouseDown={(e) => {
                    e.preventDefault();
                    accept(item);
                  }}
                  px="sm"
                  py={4}
                  style={{
                    display: 'block',
                    width: '100%',
                    background: i === popup.index ? 'var(--mantine-primary-color-light)' : undefined,
                  }}
                >
                  <Group gap={6} wrap="nowrap">
                    <Text size="sm" ff="monospace" fw={item.required ? 700 : 500}>
                      {item.label}
                    </Text>
                    {item.required && (
                      <Badge size="xs" variant="light" color="gray">
                        required
                      </Badge>
                    )}
                  </Group>
                  {item.detail && (
                    <Text size="xs" c="dimmed" lineClamp={2}>
                      {item.detail}
                    </Text>
                  )}
                </UnstyledButton>
              ))}
            </ScrollArea.Autosize>
          </Paper>
        )}
      </div>

      <Group gap="xs" wrap="nowrap" justify="space-between">
        <Text
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
                ta.current?.focus();
                openCompletion(true);
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
          onClick={() => parsed.error?.offset !== null && parsed.error && revealOffset(parsed.error.offset!)}
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

function gutterWidth(lines: number, charWidth: number): number {
  return Math.ceil(String(lines).length * charWidth + 18);
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

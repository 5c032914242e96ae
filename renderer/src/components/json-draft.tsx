/**
 * A JSON document edited as a form and as JSON text side by side: the draft, its text, whether the text
 * parses, whether it differs from what is saved; and the pieces both editors show (the Form/JSON switch,
 * the JSON text area, the problems list).
 */
import { Alert, SegmentedControl, Textarea } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import type { JsonPathIssue } from '../../../shared/schemas/json-path-issues.ts';
import { IssueList } from './bound-fields.tsx';

const pretty = (v: unknown) => JSON.stringify(v, null, 2);

export type DraftView = 'form' | 'json';

export interface JsonDraft {
  draft: unknown;
  /** replaces the draft and its text (a form edit, a discard, what a save returned) */
  replace(next: unknown): void;
  text: string;
  /** the text as typed; the draft follows it while it parses */
  onText(text: string): void;
  textError: string | null;
  dirty: boolean;
  view: DraftView;
  setView(view: DraftView): void;
}

/** A draft of `saved`; a new saved value replaces an unchanged draft. */
export function useJsonDraft(saved: unknown): JsonDraft {
  const savedText = useMemo(() => pretty(saved), [saved]);
  const [draft, setDraft] = useState<unknown>(saved);
  const [view, setView] = useState<DraftView>('form');
  const [text, setText] = useState(savedText);
  const [textError, setTextError] = useState<string | null>(null);
  const dirty = pretty(draft) !== savedText || textError !== null;
  const replace = (next: unknown) => {
    setDraft(next);
    setText(pretty(next));
    setTextError(null);
  };
  useEffect(() => {
    if (!dirty) replace(saved);
    // only when the saved value changes, not on every edit
  }, [savedText]);
  const onText = (next: string) => {
    setText(next);
    try {
      setDraft(JSON.parse(next) as unknown);
      setTextError(null);
    } catch (err) {
      setTextError((err as Error).message);
    }
  };
  return { draft, replace, text, onText, textError, dirty, view, setView };
}

export function DraftViewSwitch({ d, label, testId }: { d: JsonDraft; label: string; testId: string }) {
  return (
    <SegmentedControl
      aria-label={label}
      value={d.view}
      onChange={(v) => d.setView(v as DraftView)}
      data={[
        { value: 'form', label: 'Form' },
        { value: 'json', label: 'JSON' },
      ]}
      size="xs"
      data-testid={testId}
    />
  );
}

export function DraftJsonText({
  d,
  label,
  readOnly,
  minRows,
  testId,
}: {
  d: JsonDraft;
  label: string;
  readOnly: boolean;
  minRows: number;
  testId: string;
}) {
  return (
    <Textarea
      aria-label={label}
      value={d.text}
      onChange={(e) => d.onText(e.currentTarget.value)}
      autosize
      minRows={minRows}
      maxRows={40}
      spellCheck={false}
      readOnly={readOnly}
      styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 12 } }}
      data-testid={testId}
    />
  );
}

/** Text that does not parse, else the validator's problems. */
export function DraftProblems({
  d,
  issues,
  testId,
  whole,
}: {
  d: JsonDraft;
  issues: JsonPathIssue[];
  /** the problems list's test id; the JSON error's is `${testId}-json-error` */
  testId: string;
  whole: string;
}) {
  if (d.textError)
    return (
      <Alert color="red" variant="light" title="Not valid JSON" data-testid={`${testId}-json-error`}>
        {d.textError}
      </Alert>
    );
  return issues.length > 0 ? <IssueList issues={issues} testId={`${testId}-issues`} whole={whole} /> : null;
}

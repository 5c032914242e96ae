/**
 * A rule node's script in the code editor the REST connector's JSON editor uses (CodeMirror 6, same look
 * in both themes): JavaScript highlighting for JS and for TBEL (its syntax is Java/JS-like), line numbers,
 * bracket matching, undo. The editable element carries the test id, so it is filled like a text area.
 */
import { closeBrackets, closeBracketsKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { javascript } from '@codemirror/lang-javascript';
import { bracketMatching, HighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { Compartment, EditorState } from '@codemirror/state';
import { EditorView, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';
import { Input, useComputedColorScheme } from '@mantine/core';
import { tags as t } from '@lezer/highlight';
import { useEffect, useId, useRef } from 'react';
import { editorTheme, externalChange } from '../rest-connector/json-editor/codemirror-setup.ts';

const light = HighlightStyle.define([
  { tag: [t.keyword, t.controlKeyword, t.operatorKeyword, t.definitionKeyword], color: '#0000c0' },
  { tag: [t.string, t.special(t.string)], color: '#a31515' },
  { tag: t.number, color: '#098658' },
  { tag: [t.bool, t.null], color: '#0000ff' },
  { tag: [t.lineComment, t.blockComment], color: '#5c6b5c', fontStyle: 'italic' },
  { tag: t.propertyName, color: '#0451a5' },
  { tag: t.function(t.variableName), color: '#795e26' },
]);
const dark = HighlightStyle.define([
  { tag: [t.keyword, t.controlKeyword, t.operatorKeyword, t.definitionKeyword], color: '#569cd6' },
  { tag: [t.string, t.special(t.string)], color: '#ce9178' },
  { tag: t.number, color: '#b5cea8' },
  { tag: [t.bool, t.null], color: '#569cd6' },
  { tag: [t.lineComment, t.blockComment], color: '#8fae8f', fontStyle: 'italic' },
  { tag: t.propertyName, color: '#9cdcfe' },
  { tag: t.function(t.variableName), color: '#dcdcaa' },
]);

export function ScriptCodeEditor({
  label,
  description,
  value,
  onChange,
  testId,
  lang,
}: {
  label: string;
  description?: string;
  value: string;
  onChange: (value: string) => void;
  testId: string;
  lang: 'JS' | 'TBEL';
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  const isDark = useComputedColorScheme('light') === 'dark';
  const theme = useRef(new Compartment());
  const labelId = useId();

  useEffect(() => {
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          history(),
          indentOnInput(),
          bracketMatching(),
          closeBrackets(),
          highlightActiveLine(),
          EditorState.tabSize.of(2),
          javascript(),
          theme.current.of([editorTheme(isDark), syntaxHighlighting(isDark ? dark : light)]),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-labelledby': labelId, 'data-testid': testId }),
          keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, indentWithTab]),
          EditorView.updateListener.of((u) => {
            if (u.docChanged && !u.transactions.some((tr) => tr.annotation(externalChange)))
              onChangeRef.current(u.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = v;
    return () => v.destroy();
    // the editor is made once; value and theme changes are dispatched below
  }, []);

  useEffect(() => {
    view.current?.dispatch({
      effects: theme.current.reconfigure([editorTheme(isDark), syntaxHighlighting(isDark ? dark : light)]),
    });
  }, [isDark]);

  useEffect(() => {
    const v = view.current;
    if (!v || v.state.doc.toString() === value) return;
    v.dispatch({
      changes: { from: 0, to: v.state.doc.length, insert: value },
      annotations: externalChange.of(true),
    });
  }, [value]);

  return (
    <Input.Wrapper label={label} description={description} id={labelId} data-lang={lang}>
      <div
        ref={host}
        style={{
          border: '1px solid var(--mantine-color-default-border)',
          borderRadius: 'var(--mantine-radius-sm)',
          overflow: 'auto',
          minHeight: '6rem',
          maxHeight: '24rem',
          marginTop: 4,
        }}
      />
    </Input.Wrapper>
  );
}

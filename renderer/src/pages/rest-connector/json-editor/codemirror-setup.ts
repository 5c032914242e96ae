/**
 * The CodeMirror 6 pieces of the JSON editor: extensions, light and dark themes, schema diagnostics and
 * schema completion. Imported only by json-editor.tsx, so CodeMirror loads with the pages that show it.
 */
import {
  acceptCompletion,
  autocompletion,
  closeBrackets,
  closeBracketsKeymap,
  pickedCompletion,
  type Completion as CmCompletion,
  type CompletionContext,
  type CompletionResult,
} from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { json, jsonParseLinter } from '@codemirror/lang-json';
import {
  bracketMatching,
  foldGutter,
  foldKeymap,
  HighlightStyle,
  indentOnInput,
  syntaxHighlighting,
} from '@codemirror/language';
import { linter, lintGutter, lintKeymap, type Diagnostic } from '@codemirror/lint';
import { Annotation, EditorState, Prec, type Extension } from '@codemirror/state';
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
  tooltips,
  type ViewUpdate,
} from '@codemirror/view';
// @lezer/highlight comes with @codemirror/language (its dependency): the tags its grammars use
import { tags as t } from '@lezer/highlight';
import { parsePath } from '../../../components/json-path.ts';
import { completionsAt, type Completion } from './json-schema-complete.ts';
import { contextAt, parseWithPositions, rangeInTree } from './json-text.ts';

export interface SchemaIssue {
  path: string;
  message: string;
  severity: 'error' | 'warning';
}

/** Marks the transactions that bring the caller's value in (they are not reported back as changes). */
export const externalChange = Annotation.define<boolean>();

const lightHighlight = HighlightStyle.define([
  { tag: t.propertyName, color: '#0451a5' },
  { tag: t.string, color: '#a31515' },
  { tag: t.number, color: '#098658' },
  { tag: [t.bool, t.null], color: '#0000ff' },
  { tag: t.invalid, color: '#e00000' },
]);

const darkHighlight = HighlightStyle.define([
  { tag: t.propertyName, color: '#9cdcfe' },
  { tag: t.string, color: '#ce9178' },
  { tag: t.number, color: '#b5cea8' },
  { tag: [t.bool, t.null], color: '#569cd6' },
  { tag: t.invalid, color: '#f44747' },
]);

/** The editor's look, from Mantine's CSS variables (which follow the color scheme) plus CodeMirror's dark flag. */
export function editorTheme(dark: boolean): Extension {
  return [
    EditorView.theme(
      {
        '&': {
          height: '100%',
          fontSize: '13px',
          color: 'var(--mantine-color-text)',
          backgroundColor: 'var(--mantine-color-body)',
        },
        '&.cm-focused': { outline: 'none' },
        '.cm-scroller': { fontFamily: 'var(--mantine-font-family-monospace)', lineHeight: '20px' },
        '.cm-content': { caretColor: 'var(--mantine-color-text)' },
        '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--mantine-color-text)' },
        '.cm-gutters': {
          backgroundColor: 'var(--mantine-color-default-hover)',
          color: 'var(--mantine-color-dimmed)',
          borderRight: '1px solid var(--mantine-color-default-border)',
        },
        '.cm-activeLine': { backgroundColor: dark ? '#ffffff0a' : '#0000000a' },
        '.cm-activeLineGutter': { backgroundColor: dark ? '#ffffff14' : '#00000010' },
        '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, ::selection':
          { backgroundColor: dark ? '#264f78' : '#add6ff' },
        '.cm-tooltip': {
          fontFamily: 'var(--mantine-font-family)',
          fontSize: '13px',
          border: '1px solid var(--mantine-color-default-border)',
          backgroundColor: 'var(--mantine-color-body)',
          color: 'var(--mantine-color-text)',
          borderRadius: '6px',
          boxShadow: 'var(--mantine-shadow-md)',
        },
        '.cm-tooltip.cm-tooltip-autocomplete > ul': {
          fontFamily: 'var(--mantine-font-family-monospace)',
          maxHeight: '220px',
          minWidth: '260px',
        },
        '.cm-tooltip.cm-tooltip-autocomplete > ul > li': { padding: '2px 8px', lineHeight: '20px' },
        '.cm-tooltip.cm-tooltip-autocomplete > ul > li[aria-selected]': {
          backgroundColor: 'var(--mantine-primary-color-light)',
          color: 'var(--mantine-color-text)',
        },
        '.cm-completionDetail': {
          marginLeft: '8px',
          fontStyle: 'normal',
          fontSize: '11px',
          color: 'var(--mantine-color-dimmed)',
        },
        '.cm-tooltip.cm-completionInfo': { maxWidth: '360px', padding: '6px 8px', whiteSpace: 'normal' },
        '.cm-diagnostic': { fontFamily: 'var(--mantine-font-family)', fontSize: '12px' },
      },
      { dark },
    ),
    syntaxHighlighting(dark ? darkHighlight : lightHighlight),
  ];
}

/** Syntax errors (JSON.parse's); while the text parses, the caller's schema issues at their paths. */
export function jsonDiagnostics(issues: () => SchemaIssue[]): Extension {
  const parseLinter = jsonParseLinter();
  return linter(
    (view) => {
      const syntax = parseLinter(view);
      if (syntax.length > 0) return syntax;
      const text = view.state.doc.toString();
      const { root } = parseWithPositions(text);
      if (!root) return [];
      return issues().map((issue): Diagnostic => {
        const { from, to } = rangeInTree(text, root, parsePath(issue.path));
        return {
          from,
          to,
          severity: issue.severity,
          source: issue.path || '(document)',
          message: issue.message,
        };
      });
    },
    { delay: 250 },
  );
}

/** Replaces ctx.from..ctx.to as json-schema-complete says (a comma before it, the cursor inside it). */
function applyCompletion(item: Completion) {
  return (view: EditorView, completion: CmCompletion, from: number, to: number) => {
    const comma = item.commaAt !== null && item.commaAt <= from;
    const changes = [
      ...(comma ? [{ from: item.commaAt!, insert: ',' }] : []),
      { from, to, insert: item.insert },
    ];
    view.dispatch({
      changes,
      selection: { anchor: from + (comma ? 1 : 0) + item.cursor },
      scrollIntoView: true,
      userEvent: 'input.complete',
      annotations: pickedCompletion.of(completion),
    });
  };
}

/**
 * Keys and values from the JSON Schema where the cursor is: on Ctrl+Space anywhere, and as a key or a
 * string value is typed.
 */
export function schemaCompletion(schema: () => unknown, readOnly: () => boolean): Extension {
  const source = (context: CompletionContext): CompletionResult | null => {
    const root = schema();
    if (root === undefined || readOnly()) return null;
    const text = context.state.doc.toString();
    const ctx = contextAt(text, context.pos);
    if (!context.explicit) {
      const inString = ctx.from < ctx.to && text[ctx.from] === '"';
      if (!inString || (ctx.mode !== 'key' && ctx.mode !== 'value')) return null;
    }
    const items = completionsAt(root, ctx);
    if (items.length === 0) return null;
    return {
      from: ctx.from,
      to: ctx.to,
      filter: false,
      options: items.map((item): CmCompletion => ({
        label: item.label,
        detail: item.required ? 'required' : undefined,
        info: item.detail,
        type: item.kind === 'key' ? 'property' : 'enum',
        apply: applyCompletion(item),
      })),
    };
  };
  return [
    autocompletion({
      override: [source],
      activateOnTyping: true,
      icons: false,
      tooltipClass: () => 'sb-json-completions',
    }),
    // Tab takes the highlighted suggestion too (else it indents)
    Prec.highest(keymap.of([{ key: 'Tab', run: acceptCompletion }])),
  ];
}

/** Everything but the theme, the read-only flag and the content attributes (the editor's compartments). */
export function baseExtensions(options: {
  issues: () => SchemaIssue[];
  schema: () => unknown;
  readOnly: () => boolean;
  /** Escape when no list is open: the editor lets go of the focus */
  leave: () => void;
  onUpdate: (update: ViewUpdate) => void;
}): Extension {
  return [
    lineNumbers(),
    highlightActiveLineGutter(),
    foldGutter(),
    lintGutter(),
    highlightSpecialChars(),
    history(),
    drawSelection(),
    EditorState.allowMultipleSelections.of(false),
    indentOnInput(),
    bracketMatching(),
    closeBrackets(),
    highlightActiveLine(),
    EditorState.tabSize.of(2),
    // suggestions and diagnostics stay inside the editor's box (which scrolls with the page, and whose
    // card clips what sticks out)
    tooltips({ position: 'absolute', tooltipSpace: (view) => view.dom.getBoundingClientRect() }),
    json(),
    jsonDiagnostics(options.issues),
    schemaCompletion(options.schema, options.readOnly),
    keymap.of([
      // (the completion list's own keys, Escape included, come first: autocompletion adds them)
      {
        key: 'Escape',
        run: () => {
          options.leave();
          return true;
        },
      },
      ...closeBracketsKeymap,
      ...defaultKeymap,
      ...historyKeymap,
      ...foldKeymap,
      ...lintKeymap,
      indentWithTab,
    ]),
    EditorView.updateListener.of(options.onUpdate),
  ];
}

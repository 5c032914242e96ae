/**
 * Commands, URLs and tokens wrapped where a reader expects a break (after `/`, `.`, `?`, `&`, `=`, `:`,
 * `,` or `-`, and at spaces), never inside a word (`v1/devic|es`); what still does not fit scrolls.
 */
import { Fragment, type CSSProperties, type ReactNode } from 'react';
import { wrapChunks } from './code-wrap-chunks.ts';

/** Style for a block of code wrapped at separators: lines keep their breaks, a long word scrolls. */
export const CODE_WRAP_STYLE: CSSProperties = {
  whiteSpace: 'pre-wrap',
  overflowWrap: 'normal',
  wordBreak: 'normal',
  overflowX: 'auto',
};

/** The text with a line-break opportunity after each separator (copying it gives the text unchanged). */
export function WrapAtSeparators({ text }: { text: string }): ReactNode {
  const chunks = wrapChunks(text);
  return chunks.map((chunk, i) => (
    <Fragment key={i}>
      {chunk}
      {i < chunks.length - 1 && <wbr />}
    </Fragment>
  ));
}

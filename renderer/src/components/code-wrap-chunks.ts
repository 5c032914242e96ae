const SEPARATOR = /[/.?&=:,;|-]/;

/**
 * The text cut after each run of separators where a word follows, for a break opportunity there:
 * "v1/devices/me" → ["v1/", "devices/", "me"]. Joined, the chunks are the text.
 */
export function wrapChunks(text: string): string[] {
  const chunks: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length - 1; i++) {
    // a command-line option's dash ("-t") starts a word: no break after it
    const optionDash = text[i] === '-' && (i === 0 || /[\s-]/.test(text[i - 1]!));
    if (SEPARATOR.test(text[i]!) && !optionDash && !SEPARATOR.test(text[i + 1]!) && text[i + 1] !== ' ') {
      chunks.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  chunks.push(text.slice(start));
  return chunks;
}

/**
 * Opening and saving text files: through the desktop app's dialogs (window.sandboard) when the UI runs in
 * Sandboard's window, else the browser's own file picker and download.
 */
import type { FileFilter, SandboardBridge } from '../../../shared/desktop-bridge.ts';

function bridge(): SandboardBridge | undefined {
  return (window as Window & { sandboard?: SandboardBridge }).sandboard;
}

/** In the desktop app, a function that shows the custom converters folder in the file manager. */
export function converterFolderOpener(): (() => Promise<boolean>) | undefined {
  const desktop = bridge();
  return desktop ? () => desktop.openConvertersFolder() : undefined;
}

export interface TextFile {
  name: string;
  contents: string;
}

/** Asks for a file and reads it as text; null when the person cancels. */
export async function openTextFile(
  options: { title?: string; filters?: FileFilter[] } = {},
): Promise<TextFile | null> {
  const desktop = bridge();
  if (desktop) return desktop.openFile(options);
  return new Promise<TextFile | null>((resolve, reject) => {
    const input = document.createElement('input');
    input.type = 'file';
    input.accept = (options.filters ?? []).flatMap((f) => f.extensions.map((e) => `.${e}`)).join(',');
    input.style.display = 'none';
    const done = () => input.remove();
    input.addEventListener('cancel', () => {
      done();
      resolve(null);
    });
    input.addEventListener('change', () => {
      const file = input.files?.[0];
      done();
      if (!file) return resolve(null);
      file.text().then((contents) => resolve({ name: file.name, contents }), reject);
    });
    document.body.append(input);
    input.click();
  });
}

/** Saves text under a suggested name; resolves the name it was saved under, null when cancelled. */
export async function saveTextFile(
  suggestedName: string,
  contents: string,
  options: { title?: string; filters?: FileFilter[]; type?: string } = {},
): Promise<string | null> {
  const desktop = bridge();
  if (desktop) {
    const saved = await desktop.saveFile({
      suggestedName,
      contents,
      title: options.title,
      filters: options.filters,
    });
    return saved?.name ?? null;
  }
  const url = URL.createObjectURL(new Blob([contents], { type: options.type ?? 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = suggestedName;
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return suggestedName;
}

/** "Smart building gateways" → "Smart-building-gateways.json", as the server names exports. */
export function fileNameFor(name: string, extension = 'json'): string {
  return `${name.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || 'scenario'}.${extension}`;
}

/**
 * The in-app client's saved payload snippets per device type, exported or imported as a versioned JSON
 * file. The server keeps a tenant administrator's (GET/PUT /api/sandboard/mqtt/snippets, moved there from
 * this browser's storage once); other users' stay in this browser's storage.
 */
export interface SavedSnippet {
  name: string;
  /** '' = for every device type */
  deviceType: string;
  topic: string;
  payload: string;
  qos: 0 | 1 | 2;
  retain: boolean;
  csv?: string;
}

export const SNIPPETS_FILE_VERSION = 1;
const KEY = 'sandboard.mqttSnippets';
const MAX_SNIPPETS = 500;

export function loadSnippets(): SavedSnippet[] {
  try {
    const parsed = JSON.parse(localStorage.getItem(KEY) ?? '[]') as unknown;
    return Array.isArray(parsed) ? parsed.filter(isSnippet) : [];
  } catch {
    return [];
  }
}

export function storeSnippets(list: SavedSnippet[]): void {
  localStorage.setItem(KEY, JSON.stringify(list.slice(0, MAX_SNIPPETS)));
}

function isSnippet(v: unknown): v is SavedSnippet {
  const s = v as Partial<SavedSnippet> | null;
  return (
    !!s &&
    typeof s.name === 'string' &&
    typeof s.deviceType === 'string' &&
    typeof s.topic === 'string' &&
    typeof s.payload === 'string' &&
    (s.qos === 0 || s.qos === 1 || s.qos === 2) &&
    typeof s.retain === 'boolean' &&
    (s.csv === undefined || typeof s.csv === 'string')
  );
}

export function snippetsFile(list: SavedSnippet[]): string {
  return `${JSON.stringify({ sandboardSnippets: SNIPPETS_FILE_VERSION, snippets: list }, null, 2)}\n`;
}

/** Reads an exported file; throws naming what is wrong (a newer version, a bad entry). */
export function parseSnippetsFile(text: string): SavedSnippet[] {
  let parsed: { sandboardSnippets?: unknown; snippets?: unknown };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    throw new Error('Not a JSON file');
  }
  if (typeof parsed.sandboardSnippets !== 'number')
    throw new Error('Not a Sandboard snippets file (sandboardSnippets missing)');
  if (parsed.sandboardSnippets > SNIPPETS_FILE_VERSION)
    throw new Error(
      `The file is of version ${parsed.sandboardSnippets}; this Sandboard reads up to ${SNIPPETS_FILE_VERSION}`,
    );
  if (!Array.isArray(parsed.snippets)) throw new Error('snippets: must be a list');
  parsed.snippets.forEach((s, i) => {
    if (!isSnippet(s))
      throw new Error(`snippets[${i}]: needs name, deviceType, topic, payload, qos 0-2, retain`);
  });
  return parsed.snippets as SavedSnippet[];
}

/** Merges imported snippets: one of the same name and device type is replaced. */
export function mergeSnippets(list: SavedSnippet[], imported: SavedSnippet[]): SavedSnippet[] {
  const key = (s: SavedSnippet) => `${s.deviceType}\u0000${s.name}`;
  const byKey = new Map(list.map((s) => [key(s), s]));
  for (const s of imported) byKey.set(key(s), s);
  return [...byKey.values()];
}

/** Drops the snippets this browser kept (once the server holds them). */
export function forgetBrowserSnippets(): void {
  localStorage.removeItem(KEY);
}

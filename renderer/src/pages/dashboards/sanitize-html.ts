/**
 * HTML of a dashboard (HTML cards, HTML value cards, markdown) made safe to show: parsed into an inert
 * document and rebuilt from an allow-list of tags and attributes. Scripts, event handlers, forms,
 * frames and javascript: or remote URLs never reach the page (the app works offline, and a dashboard
 * file is not trusted).
 */
const TAGS = new Set(
  'a abbr b blockquote br caption code col colgroup div em h1 h2 h3 h4 h5 h6 hr i img li ol p pre small span strong sub sup table tbody td tfoot th thead tr u ul'.split(
    ' ',
  ),
);
const ATTRS = new Set([
  'class',
  'style',
  'title',
  'href',
  'src',
  'alt',
  'colspan',
  'rowspan',
  'width',
  'height',
  'align',
]);
/** tags whose content goes too */
const DROP = new Set(['script', 'style', 'iframe', 'object', 'embed', 'template', 'noscript', 'svg', 'math']);

function safeUrl(name: string, value: string): boolean {
  const v = value.trim().toLowerCase();
  // images only from the dashboard itself: the app is offline, and a remote image would report who looked
  if (name === 'src') return v.startsWith('data:image/');
  return (
    v.startsWith('#') ||
    v.startsWith('https://') ||
    v.startsWith('http://') ||
    (!v.includes(':') && !v.startsWith('//'))
  );
}

function safeStyle(value: string): boolean {
  return !/url\s*\(|expression\s*\(|@import|javascript:/i.test(value);
}

function clean(node: Node, into: Node, doc: Document): void {
  for (const child of Array.from(node.childNodes)) {
    if (child.nodeType === Node.TEXT_NODE) {
      into.appendChild(doc.createTextNode(child.textContent ?? ''));
      continue;
    }
    if (child.nodeType !== Node.ELEMENT_NODE) continue;
    const el = child as Element;
    const tag = el.tagName.toLowerCase();
    if (DROP.has(tag)) continue;
    if (!TAGS.has(tag)) {
      clean(el, into, doc);
      continue;
    }
    const out = doc.createElement(tag);
    for (const attr of Array.from(el.attributes)) {
      const name = attr.name.toLowerCase();
      if (!ATTRS.has(name)) continue;
      if ((name === 'href' || name === 'src') && !safeUrl(name, attr.value)) continue;
      if (name === 'style' && !safeStyle(attr.value)) continue;
      out.setAttribute(name, attr.value);
    }
    if (tag === 'img') {
      // an image with nothing safe to show is left out; the rest get an (empty) alternative text
      if (!out.hasAttribute('src')) continue;
      if (!out.hasAttribute('alt')) out.setAttribute('alt', '');
    }
    if (tag === 'a') {
      out.setAttribute('rel', 'noopener noreferrer');
      out.setAttribute('target', '_blank');
    }
    clean(el, out, doc);
    into.appendChild(out);
  }
}

/** Event handler attributes renamed before parsing: Chromium reports each one it parses as a CSP violation. */
const HANDLER_ATTRIBUTE = /(\s)on([a-z]+\s*=)/gi;

export function sanitizeHtml(html: string): string {
  const inert = html.replace(HANDLER_ATTRIBUTE, '$1data-dropped-on$2');
  const doc = new DOMParser().parseFromString(`<body>${inert}</body>`, 'text/html');
  const out = document.implementation.createHTMLDocument('');
  const root = out.createElement('div');
  clean(doc.body, root, out);
  return root.innerHTML;
}

/**
 * A CSS block of an HTML card, with what could load or run anything removed, and every rule scoped
 * to the card (each selector prefixed with `scope`), so no dashboard restyles the app around it.
 */
export function sanitizeCss(css: string, scope: string): string {
  const cleaned = css
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/@import[^;]*;?|url\s*\([^)]*\)|expression\s*\([^)]*\)|<\/?style[^>]*>/gi, '')
    .replace(/@[a-z-]+[^{]*\{([^{}]*\{[^{}]*\})*[^{}]*\}/gi, '');
  return cleaned.replace(/([^{}]+)\{([^{}]*)\}/g, (_m, selectors: string, body: string) => {
    const scoped = selectors
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s) => `${scope} ${s}`)
      .join(', ');
    return scoped ? `${scoped} {${body}}\n` : '';
  });
}

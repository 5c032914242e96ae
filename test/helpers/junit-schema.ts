/**
 * A check of JUnit XML against the common JUnit schema (the one Jenkins, GitLab and GitHub's test
 * reporters read): well-formed XML; testsuites > testsuite > testcase > failure|error|skipped|system-out;
 * the attributes each element must carry, numeric where they are counts or times; counts that add up.
 * Returns the problems (empty: valid).
 */
interface Element {
  name: string;
  attrs: Record<string, string>;
  children: Element[];
  text: string;
}

const ALLOWED: Record<string, { children: string[]; required: string[]; numeric: string[] }> = {
  testsuites: {
    children: ['testsuite'],
    required: [],
    numeric: ['tests', 'failures', 'errors', 'disabled', 'time'],
  },
  testsuite: {
    children: ['properties', 'testcase', 'system-out', 'system-err'],
    required: ['name', 'tests'],
    numeric: ['tests', 'failures', 'errors', 'skipped', 'disabled', 'time'],
  },
  testcase: {
    children: ['skipped', 'error', 'failure', 'system-out', 'system-err'],
    required: ['name', 'classname'],
    numeric: ['time', 'assertions'],
  },
  failure: { children: [], required: [], numeric: [] },
  error: { children: [], required: [], numeric: [] },
  skipped: { children: [], required: [], numeric: [] },
  'system-out': { children: [], required: [], numeric: [] },
  'system-err': { children: [], required: [], numeric: [] },
  properties: { children: ['property'], required: [], numeric: [] },
  property: { children: [], required: ['name', 'value'], numeric: [] },
};

const ENTITY = /&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/y;

function parse(xml: string): { root: Element | null; problems: string[] } {
  const problems: string[] = [];
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  if (body.length === xml.length) problems.push('no XML declaration');
  const stack: Element[] = [];
  let root: Element | null = null;
  const tag = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.:-]*="[^"<]*")*)\s*(\/?)>/y;
  let i = 0;
  while (i < body.length) {
    if (body[i] === '<') {
      tag.lastIndex = i;
      const m = tag.exec(body);
      if (!m) {
        problems.push(`malformed tag at ${i}: ${body.slice(i, i + 40)}`);
        return { root, problems };
      }
      const [whole, close, name, attrText, selfClose] = m as unknown as [
        string,
        string,
        string,
        string,
        string,
      ];
      i += whole.length;
      if (close) {
        const open = stack.pop();
        if (open?.name !== name) problems.push(`</${name}> closes <${open?.name ?? 'nothing'}>`);
        continue;
      }
      const attrs: Record<string, string> = {};
      for (const a of attrText.matchAll(/([A-Za-z_][\w.:-]*)="([^"]*)"/g)) {
        if (a[1]! in attrs) problems.push(`<${name}> repeats ${a[1]}`);
        attrs[a[1]!] = a[2]!;
        for (let k = 0; k < a[2]!.length; k++)
          if (a[2]![k] === '&') {
            ENTITY.lastIndex = k;
            if (!ENTITY.test(a[2]!)) problems.push(`<${name} ${a[1]}> has a bare &`);
          }
      }
      const el: Element = { name, attrs, children: [], text: '' };
      if (stack.length) stack.at(-1)!.children.push(el);
      else if (root) problems.push('more than one root element');
      else root = el;
      if (!selfClose) stack.push(el);
      continue;
    }
    const next = body.indexOf('<', i);
    const text = body.slice(i, next < 0 ? body.length : next);
    if (stack.length) stack.at(-1)!.text += text;
    else if (text.trim()) problems.push('text outside the root element');
    for (let k = 0; k < text.length; k++)
      if (text[k] === '&') {
        ENTITY.lastIndex = k;
        if (!ENTITY.test(text)) problems.push('a bare & in text');
      }
    if (text.includes('>')) problems.push('a bare > in text');
    i = next < 0 ? body.length : next;
  }
  if (stack.length) problems.push(`<${stack.at(-1)!.name}> is never closed`);
  return { root, problems };
}

export function junitProblems(xml: string): string[] {
  const { root, problems } = parse(xml);
  if (!root) return [...problems, 'no root element'];
  if (root.name !== 'testsuites' && root.name !== 'testsuite')
    problems.push(`the root is <${root.name}>, not <testsuites> or <testsuite>`);
  const walk = (el: Element) => {
    const rule = ALLOWED[el.name];
    if (!rule) {
      problems.push(`<${el.name}> is not a JUnit element`);
      return;
    }
    for (const a of rule.required) if (!(a in el.attrs)) problems.push(`<${el.name}> lacks ${a}`);
    for (const a of rule.numeric)
      if (a in el.attrs && !/^\d+(\.\d+)?$/.test(el.attrs[a]!))
        problems.push(`<${el.name} ${a}="${el.attrs[a]}"> is not a number`);
    for (const c of el.children) {
      if (!rule.children.includes(c.name)) problems.push(`<${c.name}> may not be inside <${el.name}>`);
      walk(c);
    }
    if (el.name === 'testsuite') {
      const cases = el.children.filter((c) => c.name === 'testcase');
      const failed = cases.filter((c) => c.children.some((x) => x.name === 'failure')).length;
      if (Number(el.attrs.tests) !== cases.length)
        problems.push(`testsuite tests="${el.attrs.tests}" but ${cases.length} testcases`);
      if ('failures' in el.attrs && Number(el.attrs.failures) !== failed)
        problems.push(`testsuite failures="${el.attrs.failures}" but ${failed} failed testcases`);
    }
  };
  walk(root);
  return problems;
}

/** The element tree, for tests that read a report's cases. */
export function junitCases(xml: string): { name: string; failure: string | null }[] {
  const { root } = parse(xml);
  const out: { name: string; failure: string | null }[] = [];
  const walk = (el: Element) => {
    if (el.name === 'testcase') {
      const f = el.children.find((c) => c.name === 'failure');
      out.push({ name: el.attrs.name!, failure: f ? f.text : null });
    }
    el.children.forEach(walk);
  };
  if (root) walk(root);
  return out;
}

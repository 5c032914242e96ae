import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, logIn, test } from './support/fixtures.ts';
import { seed, tourStops, visit } from './support/tour.ts';
import { useUiScale } from './support/ui-scale.ts';

/**
 * Every page of the app's catalog (so a page added later is checked too), on a projector (1280x720 with
 * the UI scaled to 125 %) and a big screen: no horizontal scroll, nothing sticking out sideways, no text
 * cut off, keyboard focus visible, and no serious or critical accessibility violation found by axe-core
 * (injected by the test, never part of the app). SANDBOARD_SIZES=1280x720@1.25,1366x768 picks others.
 */
const SIZES: { width: number; height: number; scale: 1 | 1.25 | 1.5 }[] = process.env.SANDBOARD_SIZES
  ? process.env.SANDBOARD_SIZES.split(',').map((s) => {
      const [size, scale] = s.split('@');
      const [width, height] = size!.split('x').map(Number);
      return { width: width!, height: height!, scale: (Number(scale ?? 1) || 1) as 1 | 1.25 | 1.5 };
    })
  : [
      { width: 1280, height: 720, scale: 1.25 },
      { width: 1920, height: 1080, scale: 1 },
    ];

/** What the page shows cut off: horizontal scroll, and elements whose own text is wider than they are. */
function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth)
      problems.push(`scrolls sideways: ${root.scrollWidth}px of content in ${root.clientWidth}px`);
    const describe = (el: Element) => {
      const testId = el.closest('[data-testid]')?.getAttribute('data-testid');
      return `${el.tagName.toLowerCase()}${testId ? ` in [data-testid=${testId}]` : ''}`;
    };
    // nothing sticks out past the window's right edge (unless a scrolling or clipping box holds it)
    const clippedWithin = (el: Element) => {
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (s.overflowX !== 'visible' && a.getBoundingClientRect().right <= root.clientWidth + 1) return true;
      }
      return false;
    };
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || r.right <= root.clientWidth + 1) continue;
      if (getComputedStyle(el).visibility === 'hidden' || clippedWithin(el)) continue;
      problems.push(`sticks out sideways by ${Math.round(r.right - root.clientWidth)}px: ${describe(el)}`);
      break;
    }
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('body *'))) {
      const ownText = Array.from(el.childNodes)
        .filter((n) => n.nodeType === Node.TEXT_NODE)
        .map((n) => n.textContent ?? '')
        .join('')
        .trim();
      if (!ownText || el.clientWidth === 0) continue;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden') continue;
      // a scroll container is meant to scroll; anything else that hides overflow cuts its text off
      const hides = ['hidden', 'clip'].includes(style.overflowX) || style.textOverflow === 'ellipsis';
      if (hides && el.scrollWidth > el.clientWidth + 1)
        problems.push(`text cut off: "${ownText.slice(0, 40)}" (${describe(el)})`);
    }
    // SVG text (rule node names, connection labels) says how wide it may be
    for (const text of Array.from(document.querySelectorAll<SVGTextElement>('svg text[data-max-width]'))) {
      const max = Number(text.getAttribute('data-max-width'));
      if (text.getComputedTextLength() > max + 0.5)
        problems.push(`text cut off: "${text.textContent}" (${describe(text)})`);
    }
    // labels drawn over each other cut each other off
    const boxes = Array.from(document.querySelectorAll<SVGGraphicsElement>('svg [data-label-box]')).map(
      (el) => el.getBoundingClientRect(),
    );
    boxes.forEach((a, i) =>
      boxes.slice(i + 1).forEach((b) => {
        if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1)
          problems.push(`labels drawn over each other at ${Math.round(a.left)},${Math.round(a.top)}`);
      }),
    );
    return problems;
  });
}

/** Tabs through the first stops of the page and names those that show no focus. */
async function focusProblems(page: Page, stops = 6): Promise<string[]> {
  await page.locator('body').focus();
  const problems: string[] = [];
  for (let i = 0; i < stops; i++) {
    await page.keyboard.press('Tab');
    const seen = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body || el.tagName === 'IFRAME') return null;
      const s = getComputedStyle(el);
      const outlined = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0;
      const ringed = s.boxShadow !== 'none';
      const name = el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 30) ?? '';
      return { visible: outlined || ringed, name: `${el.tagName.toLowerCase()} "${name}"` };
    });
    if (seen && !seen.visible) problems.push(`focus not visible on ${seen.name}`);
  }
  return problems;
}

/** Waits for the CSS transitions and animations running now (a theme switch fades colours). */
async function transitionsDone(page: Page): Promise<void> {
  await page.evaluate(() =>
    Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined))),
  );
}

async function axeProblems(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) =>
      v.nodes
        .slice(0, 4)
        .map(
          (n) =>
            `axe ${v.impact} ${v.id}: ${n.target.join(' ')} "${n.html.slice(0, 80)}" ${n.any[0]?.message ?? ''}`,
        ),
    );
}

for (const size of SIZES) {
  test(`every page at ${size.width}x${size.height} (UI at ${size.scale * 100} %): no sideways scroll, no cut-off text, visible focus, no serious axe violation`, async ({
    page,
    rest,
  }) => {
    test.setTimeout(480_000); // about 25 pages, each measured and checked by axe in two themes
    await page.setViewportSize({ width: size.width, height: size.height });
    if (size.scale !== 1) await useUiScale(page, size.scale);
    const stops = tourStops(await seed(rest));
    const problems: string[] = [];
    const note = (where: string, found: string[]) => problems.push(...found.map((p) => `${where}: ${p}`));
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto('/');
    note('login', await axeProblems(page));
    await logIn(page);
    for (const stop of stops) {
      await visit(page, stop);
      note(stop.id, await layoutProblems(page));
      note(stop.id, await focusProblems(page));
      note(`${stop.id} (light)`, await axeProblems(page));
      await page.emulateMedia({ colorScheme: 'dark' });
      // the app follows the media query on its own turn: wait for it before the fade has anything to wait on
      await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', 'dark');
      await transitionsDone(page); // colours fade to the dark theme: measure them once they are there
      note(`${stop.id} (dark)`, await axeProblems(page));
      await page.emulateMedia({ colorScheme: 'light' });
      await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', 'light');
      await transitionsDone(page);
    }
    expect(problems).toEqual([]);
  });
}

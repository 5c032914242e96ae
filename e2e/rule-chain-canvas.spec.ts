import type { Page } from '@playwright/test';
import { expect, logIn, openFromNav, test, type RestClient } from './support/fixtures.ts';
import { contrastRatio } from './support/contrast.ts';
import { useUiScale } from './support/ui-scale.ts';

const SIZES = [
  { width: 1280, height: 720, scale: 1.25 as const },
  { width: 1920, height: 1080, scale: 1 as const },
];

/** The nodes whose box is not wholly inside the canvas (names), and the canvas's box. */
function nodesOutside(page: Page) {
  return page.evaluate(() => {
    const frame = document.querySelector('[data-testid="graph-frame"]')!.getBoundingClientRect();
    return Array.from(document.querySelectorAll('[data-testid="rule-node"]'))
      .filter((n) => {
        const r = n.getBoundingClientRect();
        return (
          r.left < frame.left - 1 ||
          r.top < frame.top - 1 ||
          r.right > frame.right + 1 ||
          r.bottom > frame.bottom + 1
        );
      })
      .map((n) => n.getAttribute('data-name'));
  });
}

/** Labels whose centre is nearer another connection's path than its own ("label → nearest"). */
function labelsOffTheirEdge(page: Page) {
  return page.evaluate(() => {
    const paths = new Map<string, [number, number][]>();
    for (const p of Array.from(
      document.querySelectorAll<SVGPathElement>('[data-testid="rule-chain-arrow"]'),
    )) {
      const ctm = p.getScreenCTM()!;
      const length = p.getTotalLength();
      const points: [number, number][] = [];
      for (let i = 0; i <= 200; i++) {
        const q = p.getPointAtLength((length * i) / 200);
        const s = new DOMPoint(q.x, q.y).matrixTransform(ctm);
        points.push([s.x, s.y]);
      }
      paths.set(p.dataset.key!, points);
    }
    const wrong: string[] = [];
    for (const label of Array.from(
      document.querySelectorAll<SVGGElement>('[data-testid="rule-chain-label"]'),
    )) {
      const r = label.querySelector('rect')!.getBoundingClientRect();
      const c = [r.left + r.width / 2, r.top + r.height / 2];
      let nearest = '';
      let best = Infinity;
      for (const [key, points] of paths) {
        const d = Math.min(...points.map(([x, y]) => Math.hypot(x - c[0]!, y - c[1]!)));
        if (d < best) [best, nearest] = [d, key];
      }
      if (nearest !== label.dataset.key)
        wrong.push(`${label.textContent} (${label.dataset.key}) is nearest ${nearest}`);
    }
    return wrong;
  });
}

/** The root chain with a Push to edge node after Save Timeseries, its Failure back to a Log node on the left. */
async function extendRootChain(rest: RestClient): Promise<void> {
  const auth = `Bearer ${await rest.login()}`;
  const chains = (await (await rest.request('/api/ruleChains?page=0&pageSize=10', { auth })).json()) as {
    data: { id: { id: string }; root: boolean }[];
  };
  const rootId = chains.data.find((c) => c.root)!.id.id;
  const metadata = (await (await rest.request(`/api/ruleChain/${rootId}/metadata`, { auth })).json()) as {
    nodes: { type: string; name: string; additionalInfo?: { layoutX?: number; layoutY?: number } }[];
    connections: { fromIndex: number; toIndex: number; type: string }[];
  };
  const index = (type: string) => metadata.nodes.findIndex((n) => n.type.endsWith(type));
  const saveTs = index('.TbMsgTimeseriesNode');
  const at = metadata.nodes[saveTs]!.additionalInfo!;
  metadata.nodes.push({
    type: 'org.thingsboard.rule.engine.edge.TbMsgPushToEdgeNode',
    name: 'Push to edge',
    configuration: { scope: 'SERVER_SCOPE' },
    additionalInfo: { layoutX: (at.layoutX ?? 0) + 300, layoutY: at.layoutY },
  } as (typeof metadata.nodes)[number]);
  const push = metadata.nodes.length - 1;
  metadata.connections.push({ fromIndex: saveTs, toIndex: push, type: 'Success' });
  // a connection back to the left: the failure logged by a node under the chain's first one
  const first = metadata.nodes[0]!.additionalInfo!;
  metadata.nodes.push({
    type: 'org.thingsboard.rule.engine.action.TbLogNode',
    name: 'Log failure',
    configuration: { scriptLang: 'TBEL', tbelScript: 'return msg;', jsScript: 'return msg;' },
    additionalInfo: { layoutX: first.layoutX, layoutY: (first.layoutY ?? 0) + 220 },
  } as (typeof metadata.nodes)[number]);
  metadata.connections.push({ fromIndex: push, toIndex: push + 1, type: 'Failure' });
  const res = await rest.request('/api/ruleChain/metadata', { method: 'POST', json: metadata, auth });
  expect(res.status, await res.clone().text()).toBe(200);
}

for (const size of SIZES) {
  test(`rule chain canvas at ${size.width}x${size.height} (${size.scale * 100} %): fits every node, pans, zooms, labels on their own edges`, async ({
    page,
    rest,
  }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: size.width, height: size.height });
    await useUiScale(page, size.scale);
    await extendRootChain(rest);
    await logIn(page);
    await openFromNav(page, 'rule-chains');
    const nodes = page.getByTestId('rule-node');
    await expect(nodes).toHaveCount(9);
    const graph = page.getByTestId('rule-chain-graph');
    const frame = page.getByTestId('graph-frame');

    // the whole chain fits the canvas, which takes the page's height
    await expect(graph).toHaveAttribute('data-fit', 'true');
    expect(await nodesOutside(page)).toEqual([]);
    const box = (await frame.boundingBox())!;
    if (size.height >= 1000) expect(box.y + box.height).toBeGreaterThan(size.height - 120);

    // node names: one size, readable at 100 %
    const sizes = await nodes.evaluateAll((els) =>
      els.flatMap((e) =>
        Array.from(e.querySelectorAll('text[font-weight="600"]')).map((t) =>
          Number(t.getAttribute('font-size')),
        ),
      ),
    );
    expect(new Set(sizes).size).toBe(1);
    expect(sizes[0]).toBeGreaterThanOrEqual(12);

    // dragging the background pans: a node moves with the pointer
    const node = page.locator('[data-testid="rule-node"][data-name="Push to edge"]');
    await frame.scrollIntoViewIfNeeded();
    const seen = (await frame.boundingBox())!;
    const before = (await node.boundingBox())!;
    const start = { x: seen.x + 12, y: Math.min(seen.y + seen.height, size.height) - 12 };
    await page.mouse.move(start.x, start.y);
    await page.mouse.down();
    await page.mouse.move(start.x - 150, start.y - 40, { steps: 8 });
    await page.mouse.up();
    const after = (await node.boundingBox())!;
    expect(after.x - before.x).toBeCloseTo(-150, -1);
    expect(after.y - before.y).toBeCloseTo(-40, -1);
    await expect(graph).toHaveAttribute('data-fit', 'false');

    // the wheel zooms in about the pointer
    const scale = Number(await graph.getAttribute('data-scale'));
    await page.mouse.move(
      seen.x + seen.width / 2,
      (seen.y + Math.min(seen.y + seen.height, size.height)) / 2,
    );
    await page.mouse.wheel(0, -300);
    await expect.poll(async () => Number(await graph.getAttribute('data-scale'))).toBeGreaterThan(scale);

    // Fit brings every node back
    await page.getByTestId('graph-fit').click();
    await expect(graph).toHaveAttribute('data-fit', 'true');
    expect(await nodesOutside(page)).toEqual([]);

    // add a node, save: every label is still on its own connection
    expect(await labelsOffTheirEdge(page)).toEqual([]);
    await page.getByTestId('add-node').click();
    await page.getByTestId('palette-search').fill('log');
    await page.getByTestId('palette-search').press('Enter');
    await expect(nodes).toHaveCount(10);
    await page.getByTestId('save-chain').click();
    await expect(page.getByTestId('chain-saved')).toBeVisible();
    expect(await nodesOutside(page)).toEqual([]);
    expect(await labelsOffTheirEdge(page)).toEqual([]);

    // labels read well in both themes
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', scheme);
      const pairs = await page
        .getByTestId('rule-chain-label')
        .evaluateAll((els) =>
          els.map((g) => [
            getComputedStyle(g.querySelector('text')!).fill,
            getComputedStyle(g.querySelector('rect')!).fill,
          ]),
        );
      for (const [text, bg] of pairs)
        expect(contrastRatio(text!, bg!), `${scheme}: ${text} on ${bg}`).toBeGreaterThanOrEqual(4.5);
    }
  });
}

/**
 * The HTML report of a paired design in headless Chromium: each pair's B/A
 * drawn in measurement order (the drift and the outlier pair show where
 * they happened), table cells that wrap between words only, and the kernel
 * command line every run shares written once. Saves a screenshot under
 * test-output/ for a human to look at.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { compare } from '../../src/compare/compare.ts';
import type { RunWithRounds } from '../../src/model.ts';
import { htmlReport } from '../../src/report/html.ts';
import { makeRun } from '../compare/fixtures.ts';
import { requireTool } from '../helpers/tools.ts';
import { launchChromium } from './browser.ts';
import { CTX } from './fixtures.ts';

const OUT = resolve(import.meta.dirname, '../../test-output/report');
const PAIRS = 60;
const OUTLIER = 41;

/**
 * An alternation of 60 pairs of 2-round blocks: both sides drift up 10 %
 * over the run (the machine warming), B 2 % above A in every pair, and
 * pair 41 (0-based) an outlier where B's block ran 9 % above A's.
 */
function alternation(): [RunWithRounds, RunWithRounds] {
  const level = (k: number) => 1000 * (1 + (0.1 * k) / PAIRS);
  const wobble = (i: number) => 1 + 0.004 * Math.sin(i * 2.3);
  const values = (b: boolean) =>
    Array.from({ length: PAIRS * 2 }, (_, i) => {
      const k = Math.floor(i / 2);
      return level(k) * wobble(i + (b ? 7 : 0)) * (b ? (k === OUTLIER ? 1.09 : 1.02) : 1);
    });
  const side = (id: number, b: boolean): RunWithRounds => {
    const r = makeRun({ id, values: { getppid: values(b) }, units: PAIRS, ops: 20_000 });
    const rec = r.params.extra.interleave!;
    const interleave = { ...rec, design: 'alternation' as const, processes: 2, cpu: 1, blockRounds: 2, seed: 7, pairsPerProcess: 25, clock: 'thread-cpu' as const };
    return { ...r, params: { ...r.params, extra: { interleave, processes: PAIRS, clock: 'thread-cpu' as const } } };
  };
  return [side(1, false), side(2, true)];
}

test(
  'a paired design\'s page plots each pair\'s B/A in measurement order, wraps table cells between words and writes a shared command line once',
  { skip: requireTool('chromium', 'chromium') },
  async () => {
    mkdirSync(OUT, { recursive: true });
    const [a, b] = alternation();
    const file = join(OUT, 'pairs.html');
    writeFileSync(file, htmlReport(compare({ a, b }), CTX));
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });

      // The pairs, not A's rounds then B's: one marker per pair, left to right in pair order.
      assert.equal(await page.locator('svg[data-plot="rounds"]').count(), 0);
      const markers = page.locator('svg[data-plot="pairs"] g.series circle');
      assert.equal(await markers.count(), PAIRS);
      const points = await markers.evaluateAll((cs) => cs.map((c) => ({ x: Number(c.getAttribute('cx')), y: Number(c.getAttribute('cy')) })));
      assert.ok(points.every((p, i) => i === 0 || p.x > points[i - 1]!.x), 'pairs in measurement order');
      // The outlier pair is the highest B/A (smallest y in SVG), where it happened.
      const highest = points.reduce((m, p, i) => (p.y < points[m]!.y ? i : m), 0);
      assert.equal(highest, OUTLIER);
      // The pairs cancel the drift both sides share: every other pair sits closer to the geometric mean's line than to no change.
      const lineY = async (cls: string) => Number(await page.locator(`svg[data-plot="pairs"] line.${cls}`).getAttribute('y1'));
      const [meanY, oneY] = [await lineY('mean'), await lineY('no-change')];
      assert.ok(meanY < oneY, 'B above A: the mean line above the line of no change');
      assert.ok(points.every((p, i) => i === OUTLIER || Math.abs(p.y - meanY) < Math.abs(p.y - oneY)));
      const box = await page.locator('svg[data-plot="pairs"]').boundingBox();
      assert.ok(box !== null && box.width > 500 && box.height > 200, `pairs plot box ${JSON.stringify(box)}`);

      // Every word of every table cell lies on one line: wrapping happens between words only.
      const broken = await page.locator('table td, table th').evaluateAll((cells) =>
        cells.flatMap((cell) => {
          const node = cell.firstChild;
          if (node === null || node.nodeType !== Node.TEXT_NODE) return [];
          const text = node.textContent ?? '';
          const out: string[] = [];
          for (const m of text.matchAll(/\S+/g)) {
            const range = document.createRange();
            range.setStart(node, m.index);
            range.setEnd(node, m.index + m[0].length);
            const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
            if (tops.size > 1) out.push(m[0]);
          }
          return out;
        }),
      );
      assert.deepEqual(broken, []);
      // The command line both runs booted with, once, across both runs' columns.
      const body = (await page.locator('body').textContent()) ?? '';
      assert.equal(body.split('BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet').length - 1, 1);
      assert.equal(await page.locator('table[data-table="environment"] td[colspan="2"]', { hasText: 'BOOT_IMAGE' }).count(), 1);
      assert.deepEqual(errors, []);
      await page.locator('article.subject').first().screenshot({ path: join(OUT, 'pairs-plot.png') });
      await page.screenshot({ path: join(OUT, 'pairs.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  },
);

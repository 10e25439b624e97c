/**
 * A trial's HTML page in Debian's headless Chromium at 1280 px, the width of
 * a laptop screen: a behaviour divergence is a banner at the top, nothing is
 * wider than the window (no table or listing cut off or scrolled sideways),
 * and each changed function's disassembly diff opens from a collapsed block.
 * The screenshot is saved under test-output/ for a human to look at.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { chromium } from 'playwright-core';
import { trialHtml } from '../../src/report/trial-html.ts';
import { READER, trialDocument } from './trial-fixture.ts';
import { requireTool, toolPath } from '../helpers/tools.ts';

const OUT = resolve(import.meta.dirname, '../../test-output/report');

/** The fixture trial with sched_getparam returning EFAULT on B where A returned EINVAL. */
function divergentTrial() {
  const doc = trialDocument();
  const b = doc.behave.document;
  b.identical = false;
  b.divergences = [
    {
      kind: 'step',
      scenario: 'sched_param',
      step: 7,
      line: 9,
      call: 'sched_getparam pid=self param=null',
      a: { ret: '-1', errno: 'EINVAL', out: '-' },
      b: { ret: '-1', errno: 'EFAULT', out: '-' },
      differences: [{ field: 'errno', a: 'EINVAL', b: 'EFAULT' }],
      before: [],
    },
  ];
  return doc;
}

test('a trial page at 1280 px: the behaviour banner shows first, nothing is cut off, the disassembly diff opens', { skip: requireTool('chromium', 'chromium') }, async () => {
  mkdirSync(OUT, { recursive: true });
  const file = join(OUT, 'trial-divergent.html');
  writeFileSync(file, trialHtml(divergentTrial(), { generatedAt: '2026-12-02T00:00:00.000Z', reproduce: READER }));
  const browser = await chromium.launch({ executablePath: toolPath('chromium') ?? undefined, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    const banner = page.locator('#behaviour-banner');
    assert.ok(await banner.isVisible());
    assert.equal((await banner.textContent())?.startsWith('Behaviour differs: 1 divergence in 45 steps between A (booted twice) and B'), true);
    const box = await banner.boundingBox();
    assert.ok(box !== null && box.y + box.height <= 900, `banner below the first screen: ${JSON.stringify(box)}`);
    // Nothing wider than the window, and no box scrolled sideways (a table or listing cut off at its edge).
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 1280);
    const clipped = await page.evaluate(() =>
      [...document.querySelectorAll('.table-wrap, pre, table')].filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.outerHTML.slice(0, 80)),
    );
    assert.deepEqual(clipped, []);
    // The changed function's diff: collapsed until asked for.
    const diff = page.locator('details.asm').first();
    assert.equal(await page.locator('details.asm').count(), 1);
    assert.equal(await diff.locator('pre').isVisible(), false);
    await diff.locator('summary').click();
    assert.match((await diff.locator('pre').textContent()) ?? '', /\+\tjs __x64_sys_sched_getscheduler\.cold/);
    await page.screenshot({ path: join(OUT, 'trial-divergent-1280.png'), fullPage: true });
  } finally {
    await browser.close();
  }
});

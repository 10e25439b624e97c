/**
 * The HTML report in a real browser: Debian's headless Chromium, driven by
 * playwright-core, opens the file from disk, finds every plot and table,
 * sees no console errors and no requests beyond the file itself, and saves
 * a screenshot under test-output/ for a human to look at.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { htmlReport } from '../../src/report/html.ts';
import { evidence } from './evidence-fixtures.ts';
import { abaComparison, CTX, SUBJECTS } from './fixtures.ts';
import { requireTool } from '../helpers/tools.ts';
import { launchChromium } from './browser.ts';

const OUT = resolve(import.meta.dirname, '../../test-output/report');

test(
  'the HTML report renders in headless Chromium with every plot and table, no errors and no network',
  { skip: requireTool('chromium', 'chromium') },
  async () => {
    mkdirSync(OUT, { recursive: true });
    const file = join(OUT, 'aba.html');
    writeFileSync(file, htmlReport(abaComparison(), { ...CTX, evidence: evidence() }));
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      const consoleErrors: string[] = [];
      const requests: string[] = [];
      const failed: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(m.text());
      });
      page.on('pageerror', (e) => consoleErrors.push(e.message));
      page.on('request', (r) => requests.push(r.url()));
      page.on('requestfailed', (r) => failed.push(r.url()));
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });

      // One change plot, and a rounds and a distribution plot per subject.
      assert.equal(await page.locator('svg[data-plot="change"]').count(), 1);
      assert.equal(await page.locator('svg[data-plot="rounds"]').count(), SUBJECTS.length);
      assert.equal(await page.locator('svg[data-plot="distribution"]').count(), SUBJECTS.length);
      // A, B and A2 each draw their 15 rounds in every rounds plot.
      for (const run of ['A', 'B', 'A2']) {
        assert.equal(await page.locator(`svg[data-plot="rounds"] g.series[data-run="${run}"] > *`).count(), 15 * SUBJECTS.length);
      }
      for (const id of ['results', 'drift', 'power', 'environment', 'runs']) {
        assert.equal(await page.locator(`table[data-table="${id}"]`).count(), 1, `table ${id}`);
      }
      // The results table has a row per subject, regressions first.
      const firstColumn = await page.locator('table[data-table="results"] tbody th').allTextContents();
      assert.deepEqual(firstColumn, ['getppid', 'sched_getattr', 'read']);
      // The hint patch's evidence: the codegen matrix and the branch counts, most executed first.
      for (const id of ['codegen', 'branch-evidence']) assert.ok(await page.locator(`section#${id} h2`).isVisible(), `section ${id}`);
      assert.deepEqual(await page.locator('table[data-table="codegen"] tbody th').allTextContents(), ['__do_sys_mincore']);
      assert.deepEqual(await page.locator('table[data-table="branches"] tbody th').allTextContents(), ['kernel/sched/syscalls.c:712', 'fs/select.c:635']);
      // Plots really are laid out (a broken SVG renders with zero size).
      const box = await page.locator('svg[data-plot="change"]').boundingBox();
      assert.ok(box !== null && box.width > 300 && box.height > 80, `change plot box ${JSON.stringify(box)}`);
      // The verdict badge text is there for readers who cannot tell the colours apart.
      assert.equal(await page.locator('.badge.slower').first().textContent(), 'slower');

      assert.deepEqual(consoleErrors, []);
      assert.deepEqual(failed, []);
      assert.deepEqual(requests, [pathToFileURL(file).href], 'the page loads nothing but itself');
      await page.screenshot({ path: join(OUT, 'aba.png'), fullPage: true });
      await page.emulateMedia({ media: 'print' });
      await page.screenshot({ path: join(OUT, 'aba-print.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  },
);

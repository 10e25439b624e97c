/**
 * Snapshots of the cost reports of hand-built cost documents
 * (./cost-fixture.ts): what `vm --cost` prints after its boots, and the
 * trial's cost section in every trial format. The expected text lives in
 * test/report/snapshots/cost/; `HINTLAB_UPDATE_SNAPSHOTS=1` rewrites it,
 * for a change of wording made on purpose and reviewed in its diff.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vmCostSummary } from '../../src/compare/cost-functions.ts';
import { costSummaryText } from '../../src/report/cost.ts';
import { costLkml, costMarkdown, costText } from '../../src/report/trial-cost.ts';
import { trialLkml, trialText } from '../../src/report/trial.ts';
import { trialMarkdown } from '../../src/report/trial-md.ts';
import { trialHtml } from '../../src/report/trial-html.ts';
import { trialJson } from '../../src/report/trial-json.ts';
import type { TrialDocument } from '../../src/trial/document.ts';
import { costRuns, trialCostSection } from './cost-fixture.ts';
import { READER, trialDocument } from './trial-fixture.ts';

const SNAPSHOTS = join(dirname(fileURLToPath(import.meta.url)), 'snapshots', 'cost');
const ctx = { generatedAt: '2026-12-04T00:00:00.000Z', reproduce: READER };

/** Compare with the stored snapshot, or write it when asked to. */
function matchesSnapshot(name: string, actual: string): void {
  const file = join(SNAPSHOTS, name);
  if (process.env.HINTLAB_UPDATE_SNAPSHOTS === '1') {
    mkdirSync(SNAPSHOTS, { recursive: true });
    writeFileSync(file, actual);
  }
  assert.ok(existsSync(file), `${file} is missing: run with HINTLAB_UPDATE_SNAPSHOTS=1 and review the new file`);
  assert.equal(actual, readFileSync(file, 'utf8'), `${name} differs from its snapshot`);
}

function trialWithCost(): TrialDocument {
  return { ...trialDocument(), cost: trialCostSection() };
}

/** The HTML report's cost section, whole. */
function costSection(html: string): string {
  const section = /<section id="cost">[^]*?<\/section>/.exec(html);
  assert.ok(section, 'the HTML report has a cost section');
  return section[0];
}

test('vm --cost prints the scope, every counter per boot, whether boots agree and the changed functions as in its snapshot', () => {
  const { A, B } = costRuns();
  matchesSnapshot('vm-cost.txt', costSummaryText(vmCostSummary(new Map([['A', [A]], ['B', [B]]]))));
});

test('vm --cost names a kernel without per-function counts and compares nothing per function then', () => {
  const { A, B } = costRuns();
  const bare = { ...B, environment: { ...B.environment, cost: { functions: [{ known: false, reason: 'no System.map next to /boot/vmlinuz-6.12.117-hl' }] } } };
  matchesSnapshot('vm-cost-one-table.txt', costSummaryText(vmCostSummary(new Map([['A', [A]], ['B', [bare]]]))));
});

test("the trial's cost section reads the same in the text report as in its snapshot", () => {
  const doc = trialWithCost();
  const section = costText(doc.cost!).join('\n');
  matchesSnapshot('trial-cost.txt', `${section}\n`);
  assert.ok(trialText(doc, ctx).includes(section), 'the text report carries the cost section whole');
});

test("the trial's cost section reads the same in the Markdown report as in its snapshot", () => {
  const doc = trialWithCost();
  const section = costMarkdown(doc.cost!).join('\n\n');
  matchesSnapshot('trial-cost.md', `${section}\n`);
  assert.ok(trialMarkdown(doc, ctx).includes(section), 'the Markdown report carries the cost section whole');
});

test("the trial's cost section reads the same in the lkml block as in its snapshot", () => {
  const doc = trialWithCost();
  const block = costLkml(doc.cost!).join('\n');
  matchesSnapshot('trial-cost.lkml', `${block}\n`);
  assert.ok(trialLkml(doc, ctx).includes(`\n\n${block}\n\n`), 'the lkml block carries the cost lines as a paragraph of their own');
});

test("the trial's cost section reads the same in the HTML report as in its snapshot", () => {
  const html = trialHtml(trialWithCost(), ctx);
  matchesSnapshot('trial-cost.html', `${costSection(html)}\n`);
});

test("the trial's JSON report carries the cost section as in its snapshot, and is JSON only", () => {
  const json = trialJson(trialWithCost(), ctx);
  const doc = JSON.parse(json) as { cost: unknown };
  matchesSnapshot('trial-cost.json', `${JSON.stringify(doc.cost, null, 2)}\n`);
});

test('a cost section stored before counters named their rule lists only what the exact rule claimed, every boot alike', () => {
  const cost = trialCostSection();
  assert.ok(cost.counters.known);
  const metrics = cost.counters.value.metrics.map(({ rule: _rule, ...e }) => ({ ...e, subjects: e.subjects.map(({ boots: _boots, ciInUnit: _ci, ...s }) => s) }));
  const old = { ...cost, counters: { known: true as const, value: { ...cost.counters.value, metrics } } };
  assert.deepEqual(costLkml(old).slice(2), ['  sched_getattr: taken branches +1.00/call (exact, every boot alike).']);
});

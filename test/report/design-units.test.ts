/** Every report states the units of the design that ran: pairs of blocks, rounds per block, calls per round, processes per side. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compare } from '../../src/compare/compare.ts';
import type { Comparison } from '../../src/compare/types.ts';
import type { RunWithRounds } from '../../src/model.ts';
import { htmlReport } from '../../src/report/html.ts';
import { lkmlReport } from '../../src/report/lkml.ts';
import { markdownReport } from '../../src/report/md.ts';
import { renderText } from '../../src/report/text.ts';
import { makeRun } from '../compare/fixtures.ts';

const CTX = { hintlabVersion: '0.1.0', generatedAt: '2026-12-03T00:00:00.000Z' };

/** `pairs` blocks of `blockRounds` rounds per side, B 1 % above A with a little noise that repeats. */
function pairedRuns(pairs: number, blockRounds: number, interleave: Record<string, unknown>): [RunWithRounds, RunWithRounds] {
  const values = (level: number) => Array.from({ length: pairs * blockRounds }, (_, i) => level * (1 + 0.02 * Math.sin(i * 1.7)));
  const side = (id: number, level: number): RunWithRounds => {
    const r = makeRun({ id, values: { getppid: values(level) }, units: pairs, ops: 20_000 });
    const rec = r.params.extra.interleave!;
    return { ...r, params: { ...r.params, extra: { interleave: { ...rec, clock: 'thread-cpu', ...interleave }, processes: pairs, clock: 'thread-cpu' } } };
  };
  return [side(1, 1000), side(2, 1010)];
}

/** Every line of every report, joined across line breaks. */
function allReports(c: Comparison): string[] {
  const flat = (s: string) => s.replace(/\n\s*/g, ' ');
  return [flat(lkmlReport(c, CTX)), flat(markdownReport(c, CTX)), flat(htmlReport(c, CTX)), flat(renderText(c))];
}

test('an alternation of an A and a B process: pairs of 2-round blocks, calls per round, processes per side, never 82 processes', () => {
  const [a, b] = pairedRuns(82, 2, { design: 'alternation', processes: 2, cpu: 1, blockRounds: 2, seed: 7, pairsPerProcess: 25 });
  const c = compare({ a, b });
  assert.equal(c.design.processesPerSide, 4);
  assert.match(lkmlReport(c, CTX).replace(/\n\s*/g, ' '), /Means in ns\/call \(thread CPU clock\), B vs A, 82 pairs of 2-round blocks x 20000 calls, 4 processes per side:/);
  for (const text of allReports(c)) {
    assert.match(text, /82 pairs of 2-round blocks x 20000 calls, 4 processes per side/);
    assert.doesNotMatch(text, /82 processes/);
  }
});

test('an alternation in one process with a switched file says the one process measured both sides', () => {
  const [a, b] = pairedRuns(40, 3, { design: 'alternation', blockRounds: 3, seed: 7 });
  for (const text of allReports(compare({ a, b }))) assert.match(text, /40 pairs of 3-round blocks x 20000 calls, one process for both sides/);
});

test('a duet names both CPUs it ran on, a fresh pair of processes per block, and one subject in the singular', () => {
  const [a, b] = pairedRuns(30, 2, { design: 'duet', cpus: [1, 0], swapEvery: 1, blockRounds: 2 });
  const c = compare({ a, b });
  for (const text of allReports(c)) {
    assert.match(text, /30 pairs of 2-round blocks x 20000 calls, 30 processes per side/);
    assert.match(text, /duet: A and B at once on CPUs 1 and 0/);
  }
  // the facts of lkml, Markdown and HTML (the text report shows the environment rows instead)
  for (const text of allReports(c).slice(0, 3)) {
    assert.match(text, /pinned CPUs 1 and 0 \(A and B at once, one on each\)/);
    assert.doesNotMatch(text, /pinned CPU 1\b/);
  }
  assert.match(lkmlReport(c, CTX).replace(/\n\s*/g, ' '), /\(Holm, 1 subject\)/);
});

test('unpaired processes of one invocation are counted per side', () => {
  const a = makeRun({ id: 1, values: { getppid: [100, 101, 99, 100, 102, 98] }, units: 3, ops: 20_000 });
  const b = makeRun({ id: 2, values: { getppid: [103, 104, 102, 103, 105, 101] }, units: 3, ops: 20_000 });
  for (const text of allReports(compare({ a, b }))) assert.match(text, /3 processes per side x 2 rounds x 20000 calls/);
});

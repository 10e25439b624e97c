/**
 * Numbers never round into nonsense, in any format: figures seen in a real
 * A/B/A of a scheduler patch under qemu -icount ("95 % CI -69.6 to -69.6 %",
 * "(detectable: 0.0 %)", "-0.0 instructions", "1991 -> 605" next to
 * "583.4 -> 607.5") are rebuilt by hand here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Comparison } from '../../src/compare/types.ts';
import { fixed, readableDecimals, signed } from '../../src/format/numbers.ts';
import { contrastDecimals, cvText } from '../../src/report/comparison-words.ts';
import { htmlReport } from '../../src/report/html.ts';
import { lkmlReport } from '../../src/report/lkml.ts';
import { markdownReport } from '../../src/report/md.ts';
import { subjectSentence } from '../../src/report/summary.ts';
import { renderText } from '../../src/report/text.ts';
import { abaComparison, contrast, CTX, summary } from './fixtures.ts';

/** An icount comparison whose first subject is 1991 -> 605 instructions with a CI 0.04 % wide, the second -0.02 instructions. */
function icountComparison(): Comparison {
  const c = abaComparison({ unit: 'instructions/call' });
  const [big, tiny] = c.subjects;
  big!.subject = 'sched_setparam-custom';
  big!.runs = [summary('A', 12, 1991, 0.01), summary('B', 13, 605, 0.02), summary('A2', 14, 1991, 0.01)];
  big!.change = contrast('B', 'A', 1991, 605, [-69.62, -69.58]);
  tiny!.subject = 'sched_getparam';
  tiny!.runs = [summary('A', 12, 258.1, 0.02), summary('B', 13, 258.08, 0.01), summary('A2', 14, 258.1, 0.02)];
  tiny!.change = contrast('B', 'A', 258.1, 258.08, [-0.011, -0.004]);
  tiny!.verdict = { verdict: 'no difference proven', reason: 'within the noise threshold', caveats: [] };
  tiny!.power = { kind: 'ok', alpha: 0.05, power: 0.8, mdePct: 0.02, claimablePct: 0.02, detectPct: null, unitsNeeded: null, advice: null };
  // the sentence prints the contrast the verdict used: these subjects' B vs A intervals are the ones under test
  big!.judgedOn = 'B vs A';
  tiny!.judgedOn = 'B vs A';
  c.regressions = [];
  return c;
}

test('an interval narrower than the display precision gets decimals until its ends differ', () => {
  assert.equal(readableDecimals(1, [], [[-69.62, -69.58]]), 2);
  assert.equal(readableDecimals(1, [], [[-69.6, -69.6]]), 1, 'a degenerate interval cannot be told apart');
  const c = icountComparison();
  const sentence = subjectSentence(c, c.subjects[0]!);
  assert.match(sentence, /\(-69\.61 %, 95 % CI -69\.62 to -69\.58 %\)/);
});

test('before, after and the change of one sentence share one rule: 1991.0 -> 605.0, not 1991 -> 605', () => {
  const c = icountComparison();
  assert.match(subjectSentence(c, c.subjects[0]!), /^sched_setparam-custom: 1991\.0 -> 605\.0 instructions\/call, -1386\.0 instructions /);
});

test('a change that rounds to zero gets a significant digit, with before and after at the same decimals', () => {
  const c = icountComparison();
  const sentence = subjectSentence(c, c.subjects[1]!);
  assert.match(sentence, /^sched_getparam: 258\.10 -> 258\.08 instructions\/call, -0\.02 instructions \(-0\.008 %, 95 % CI -0\.011 to -0\.004 %\)/);
  assert.match(sentence, /no difference proven \(detectable: 0\.02 %\)/);
  assert.match(sentence, /CV A\/B\/A2 0\.02\/0\.01\/0\.02 %/);
});

test('no format prints a signed zero or a nonzero value as zero', () => {
  const c = icountComparison();
  const texts = [lkmlReport(c, CTX), markdownReport(c, CTX), htmlReport(c, CTX), renderText(c)];
  for (const text of texts) {
    assert.doesNotMatch(text, /-0(\.0+)?(?![\d.])/, 'signed zero');
    assert.doesNotMatch(text, /detectable: 0\.0+ %/);
    assert.doesNotMatch(text, /-69\.6 %? ?(to|\.\.) -69\.6\b/);
  }
});

test("compare's text table puts one rule on a row's means and separates an interval's ends", () => {
  const text = renderText(icountComparison());
  const row = text.split('\n').find((l) => l.startsWith('sched_setparam-custom '));
  assert.ok(row, text);
  assert.match(row, /1991\.0 instr ± 0\.01 %\s+605\.0 instr ± 0\.02 %\s+1991\.0 instr ± 0\.01 %/);
  assert.match(row, /-69\.62 % \.\. -69\.58 %/);
  const tiny = text.split('\n').find((l) => l.startsWith('sched_getparam '));
  assert.match(tiny ?? '', /-0\.02 instr \(-0\.008 %\)/);
});

test('the Markdown and HTML tables follow the same rule as the sentences', () => {
  const c = icountComparison();
  const md = markdownReport(c, CTX);
  assert.match(md, /\| sched\\_setparam-custom \| 1991\.0 \| 605\.0 \| 1991\.0 \| -1386\.0 \| -69\.61 \| -69\.62 to -69\.58 \|/);
  assert.match(md, /\| sched\\_getparam \| 258\.10 \| 258\.08 \| 258\.10 \| -0\.02 \| -0\.008 \| -0\.011 to -0\.004 \|/);
  assert.match(htmlReport(c, CTX), /-69\.62 to -69\.58/);
});

test('a tiny change gets its digits without dragging its interval along', () => {
  // Seen in a real icount A/B/A: drift +0.00001 % inside a CI of about ±0.014 %.
  const d = contrastDecimals({ baselineMeanInUnit: 5246, candidateMeanInUnit: 5246.0005, changeInUnit: 0.0005, changePct: 0.00001, ciPct: { kind: 'ok', low: -0.01421, high: 0.01422, level: 0.95 } });
  assert.deepEqual([d.pct, d.ci], [5, 2]);
  assert.equal(signed(-0.01421, d.ci), '-0.01');
});

test('the rule never prints a sign on zero and stops at six decimals', () => {
  assert.equal(fixed(-0.0001, 1), '0.0');
  assert.equal(signed(-0.0001, 1), '0.0');
  assert.equal(signed(0.04, 1), '0.0');
  assert.equal(readableDecimals(1, [1e-12]), 6);
  assert.deepEqual(contrastDecimals({ baselineMeanInUnit: 100, candidateMeanInUnit: 100, changeInUnit: 0, changePct: 0, ciPct: { kind: 'insufficient-data', reason: 'one round' } }), { unit: 1, pct: 2, ci: 2 });
  assert.equal(cvText([summary('A', 1, 10, 0.004), summary('B', 2, 10, 0.004)]), 'round CV 0.004 %');
});

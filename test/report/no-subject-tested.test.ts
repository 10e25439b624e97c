/**
 * A comparison in which no subject could be tested (every one insufficient
 * units) names no correction "over 0 subjects": it says that nothing was tested.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Comparison } from '../../src/compare/types.ts';
import { lkmlReport } from '../../src/report/lkml.ts';
import { renderText } from '../../src/report/text.ts';
import { abaComparison, CTX } from './fixtures.ts';

function untested(): Comparison {
  const c = abaComparison();
  c.multipleComparisons = { ...c.multipleComparisons, familySize: 0 };
  return c;
}

test('with no subject tested, text and lkml say so instead of a correction over 0 subjects', () => {
  const c = untested();
  for (const out of [renderText(c), lkmlReport(c, CTX)]) {
    assert.doesNotMatch(out, /0 subjects/);
    assert.match(out.replace(/\s+/g, ' '), /no subject could be tested/);
  }
});

test('with subjects tested, the correction still names how many', () => {
  const c = abaComparison();
  assert.match(renderText(c), /Holm's step-down correction over \d+ subjects?/);
});

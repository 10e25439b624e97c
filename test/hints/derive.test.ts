/**
 * deriveFromLines on the counts of Debian 6.12's kernel/sched/pelt.c:200
 * (`if (!delta) return 0;` in ___update_load_sum, inlined five times), as a
 * real kernel gcov profile gave them: the statement after the `if` kept its
 * line for one copy only (4 runs), so flow past the `if` read from it would
 * say "likely" where the branch profiler counted the then-branch in 27 %.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deriveFromLines } from '../../src/hints/derive.ts';
import type { LineCounts } from '../../src/hints/gcov.ts';
import type { IfSite } from '../../src/hints/types.ts';

const pair = (fall: number, jump: number) => [
  { count: fall, fallthrough: true, throw: false },
  { count: jump, fallthrough: false, throw: false },
];

const site: IfSite = {
  file: 'kernel/sched/pelt.c',
  line: 200,
  fn: '___update_load_sum',
  condition: '!delta',
  open: { row: 199, column: 4 },
  close: { row: 199, column: 11 },
  endLine: 200,
  annotation: { kind: 'none' },
  skip: null,
  layout: { thenLine: null, elseLine: null, flow: { terms: [{ line: 203, sign: 1 }], refused: null }, singleTest: true, callsFunction: false },
  heuristic: false,
};

function lines(after: number): Map<number, LineCounts> {
  const arcs = [...pair(0, 2154), ...pair(0, 2154), ...pair(728997, 705275), ...pair(63274, 1367826), ...pair(9, 4)];
  return new Map([
    [200, { count: 2869693, arcs }],
    [203, { count: after, arcs: [] }],
  ]);
}

test('flow that is not one arc of each inlined copy is refused', () => {
  const d = deriveFromLines(site, lines(4));
  assert.equal(d.kind, 'unknown');
  assert.match(d.reason, /is not one arc of each of line 200's 5 arc pair\(s\)/);
});

test('flow that is one arc of each copy is used', () => {
  const past = 2154 + 2154 + 728997 + 1367826 + 9;
  const d = deriveFromLines(site, lines(past));
  assert.deepEqual(d.kind === 'counted' ? [d.confidence, d.executions, d.thenCount] : d, ['flow', 2869693, 2869693 - past]);
});

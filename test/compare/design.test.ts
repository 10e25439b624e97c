import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compare } from '../../src/compare/compare.ts';
import { designOf, interleavedPartners } from '../../src/compare/design.ts';
import { lkmlReport } from '../../src/report/lkml.ts';
import { renderText } from '../../src/report/text.ts';
import { CTX } from '../report/fixtures.ts';
import { makeRun } from './fixtures.ts';

/** Five processes of four rounds each, tight within a process, means a few tenths of a percent apart. */
const units = (level: number) => [1, 1.002, 0.999, 1.001, 0.998].flatMap((u) => [0, 1, 2, 3].map((i) => level * u * (1 + 0.0002 * Math.sin(i))));

test('two separate runs never claim: a 10 % shift between them reads no difference proven, saying why and what to run', () => {
  const a = makeRun({ id: 1, design: 'separate', values: { getppid: units(100) }, units: 5 });
  const b = makeRun({ id: 2, design: 'separate', values: { getppid: units(110) }, units: 5 });
  const s = compare({ a, b }).subjects[0]!;
  assert.equal(s.verdict.verdict, 'no difference proven');
  assert.deepEqual(s.verdict.caveats, ['separate-runs']);
  assert.match(s.verdict.reason, /^A and B are two separate runs, .* it would read 'slower': .*; for a claim, measure A and B in one invocation \(hintlab bench --label-b \.\.\.\), or run the baseline again after B and give it as A2$/);
  assert.match(renderText(compare({ a, b })), /^ {2}caveat: separate-runs$/m);
  assert.match(lkmlReport(compare({ a, b }), CTX).replace(/\n\s*/g, ' '), /no difference!.*! A and B are separate runs, so a shift between runs cannot be told from a change/);
});

test('the same rounds as one interleaved invocation, as A/B/A, or as boots support the claim', () => {
  const interleaved = compare({ a: makeRun({ id: 1, values: { getppid: units(100) }, units: 5 }), b: makeRun({ id: 2, values: { getppid: units(110) }, units: 5 }) });
  assert.equal(interleaved.subjects[0]!.verdict.verdict, 'slower');
  const aba = compare({
    a: makeRun({ id: 1, design: 'separate', values: { getppid: units(100) }, units: 5 }),
    b: makeRun({ id: 2, design: 'separate', values: { getppid: units(110) }, units: 5 }),
    a2: makeRun({ id: 3, design: 'separate', values: { getppid: units(100.05) }, units: 5 }),
  });
  assert.equal(aba.subjects[0]!.verdict.verdict, 'slower');
  const boots = compare({
    a: makeRun({ id: 1, design: 'separate', kind: 'vm', unit: 'instructions/call', values: { getppid: units(1000) }, units: 5 }),
    b: makeRun({ id: 2, design: 'separate', kind: 'vm', unit: 'instructions/call', values: { getppid: units(1100) }, units: 5 }),
  });
  assert.equal(boots.subjects[0]!.verdict.verdict, 'more instructions');
});

test('interleaved partners are the A and B of one invocation: other sides, same order and labels, created one after the other', () => {
  const run = (id: number, side: 'A' | 'B', labels = { A: 'A', B: 'B' }) => {
    const r = makeRun({ id, design: 'separate', values: { getppid: [1] } });
    return { ...r, params: { ...r.params, extra: { interleave: { side, order: 'ABBA', labels } } } };
  };
  assert.equal(interleavedPartners(run(4, 'A'), run(5, 'B')), true);
  assert.equal(interleavedPartners(run(4, 'A'), run(7, 'B')), false, 'A of one invocation, B of another');
  assert.equal(interleavedPartners(run(4, 'A'), run(5, 'A')), false);
  assert.equal(interleavedPartners(run(4, 'A'), run(5, 'B', { A: 'x', B: 'y' })), false);
  assert.equal(designOf(run(4, 'A'), run(7, 'B')).kind, 'separate-runs');
  const macro = makeRun({ id: 1, design: 'separate', kind: 'macro', unit: 'bogo-ops/s', values: { 'fifo@1': [1] } });
  const advice = designOf(macro, { ...macro, id: 2 });
  assert.ok(advice.kind === 'separate-runs' && advice.advice === 'run the baseline again after B and give it as A2');
});

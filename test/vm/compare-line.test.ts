import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareLine } from '../../src/report/vm.ts';
import type { StepResult } from '../../src/vm/runner.ts';

const kernel = (label: string) => ({ label, image: `/boot/${label}`, manifest: null, configHash: { known: false as const, reason: 'none' } });
const steps = (order: string[]): StepResult[] => {
  const seen = new Map<string, number>();
  return order.map((label, index) => {
    const bootIndex = (seen.get(label) ?? 0) + 1;
    seen.set(label, bootIndex);
    return { index, kernel: kernel(label), bootIndex, runLabel: `vm-${label}-${bootIndex}`, state: 'complete', runId: index + 1, seconds: 7 };
  });
};

test('after the boots, vm suggests comparing each kernel\'s boots together, as units', () => {
  assert.equal(compareLine(steps(['A', 'B', 'A', 'B', 'A', 'B']), '/tmp/x.db'), 'compare with: hintlab compare vm-A-1,vm-A-2,vm-A-3 vm-B-1,vm-B-2,vm-B-3 --db /tmp/x.db\n');
});

test('with fewer than 3 boots of a kernel, vm says a claim needs more boots', () => {
  const line = compareLine(steps(['A', 'B', 'A']), undefined)!;
  assert.match(line, /^compare with: hintlab compare vm-A-1,vm-A-2 vm-B-1\n/);
  assert.match(line, /fewer than 3 boots per kernel: compare will say insufficient units; boot each kernel 3 or more times, e\.g\. --repeat 3/);
});

test("with --repeat, each kernel's boots are already one run, named once", () => {
  const pooled = steps(['A', 'B', 'B', 'A', 'A', 'B']).map((s) => ({ ...s, runLabel: `vm-${s.kernel.label}` }));
  assert.equal(compareLine(pooled, undefined), 'compare with: hintlab compare vm-A vm-B\n');
  const two = steps(['A', 'B', 'B', 'A']).map((s) => ({ ...s, runLabel: `vm-${s.kernel.label}` }));
  assert.match(compareLine(two, undefined)!, /^compare with: hintlab compare vm-A vm-B\n {2}\(fewer than 3 boots per kernel/);
});

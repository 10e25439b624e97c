/** `bisect --cost`: the culprit's per-function change against its parent (src/bisect/cost.ts), from stored runs, and its words in the text report. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { culpritFunctions } from '../../src/bisect/cost.ts';
import type { BisectStep } from '../../src/bisect/document.ts';
import { Store } from '../../src/store/store.ts';
import type { FunctionCost } from '../../src/cost-counters.ts';

const fn = (name: string, insns: number, taken: number, addr = 'ffffffff81000000'): FunctionCost => ({ name, addr, size: 64, perCall: { insns, taken, fetches: 10, misses: 0, mispred: 1 } });

function bootRun(store: Store, functions: FunctionCost[]): number {
  return store.createRun({
    label: null,
    kind: 'vm',
    unit: 'instructions/call',
    replicateUnit: 'boot',
    command: 'test',
    hintlabVersion: 't',
    params: { subjects: ['getppid'], ops: 1000, warmups: 0, rounds: 1, cpu: 0, subjectParams: {}, extra: {} },
    environment: { cost: { functions: [{ known: true, value: { getppid: functions } }] } },
  });
}

const step = (runId: number | null): BisectStep => ({ commit: { hash: 'c', subject: 's', author: 'a' }, role: 'step', state: 'measured', boots: [{ value: 1, runId }], value: 1, side: 'bad', reused: false, build: 'built', seconds: 1 });

test('the functions whose per-call counts changed from the parent to the culprit are listed, the unchanged counted', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hintlab-bisect-cost-'));
  const store = Store.open(join(dir, 'c.db'));
  try {
    const parent = bootRun(store, [fn('__x64_sys_getppid', 20, 2), fn('entry_SYSCALL_64', 30, 3)]);
    const culprit = bootRun(store, [fn('__x64_sys_getppid', 70, 5), fn('entry_SYSCALL_64', 30, 3)]);
    const f = culpritFunctions(store, step(parent), step(culprit));
    assert.equal(f?.unchanged, 1);
    assert.deepEqual(f.changed.map((c) => [c.name, c.change.insns, c.change.taken]), [['__x64_sys_getppid', 50, 3]]);
    assert.equal(culpritFunctions(store, step(null), step(culprit)), null, 'no stored run (a fake lab): no table');
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

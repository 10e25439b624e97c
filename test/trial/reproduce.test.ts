/**
 * The trial's reproduce commands (src/trial/reproduce.ts): the vm line
 * boots as the trial did, with the cost plugin and its model when the
 * trial's boots ran it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TrialCodegen } from '../../src/trial/codegen.ts';
import type { TrialKernel } from '../../src/trial/document.ts';
import { reproduceCommands } from '../../src/trial/reproduce.ts';
import type { TrialRequest } from '../../src/trial/request.ts';
import type { VmStepResult } from '../../src/trial/steps.ts';
import { DEFAULT_COST_MODEL } from '../../src/vm/cost-plugin.ts';

const kernel = (role: 'A' | 'B'): TrialKernel => ({ role, dir: `/k/${role}`, image: `/k/${role}/bzImage`, state: 'built', manifest: {} as TrialKernel['manifest'] });
const req = (cost: TrialRequest['cost']): TrialRequest =>
  ({
    src: '/src', patches: ['/p.patch'], base: 'tinyconfig', fragment: null, opt: 'O2', scenarioArgs: [], profileArgs: [], rounds: 5, warmups: 1, ops: null, repeat: 3,
    thresholdPct: 1, db: null, lava: null, cost, invocation: { argv: ['trial'], cwd: '/' },
  }) as unknown as TrialRequest;
const vm = { runs: { A: { id: 1, label: 'trial1-A' }, B: { id: 2, label: 'trial1-B' } }, order: [], icount: true } as unknown as VmStepResult;
const codegen = { objects: [], compiler: 'gcc', opt: 'O2' } as unknown as TrialCodegen;
const vmLine = (cost: TrialRequest['cost']) => reproduceCommands({ req: req(cost), kernels: { A: kernel('A'), B: kernel('B') }, codegen, vm }).find((c) => c.part === 'vm')!.argv;

test('the vm line carries --cost when the boots ran the cost plugin, and --cost-model when the model was not the default', () => {
  assert.ok(!vmLine(null).includes('--cost'));
  assert.deepEqual(vmLine(DEFAULT_COST_MODEL).slice(7, 10), ['--icount', '--accel', 'tcg']);
  assert.ok(vmLine(DEFAULT_COST_MODEL).includes('--cost'));
  assert.ok(!vmLine(DEFAULT_COST_MODEL).includes('--cost-model'));
  const small = { ...DEFAULT_COST_MODEL, l1iBytes: 16 * 1024 };
  const line = vmLine(small);
  assert.equal(line[line.indexOf('--cost-model') + 1], 'l1i=16k,8way,64 predictor=2bit');
});

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseStressNgVersion, parseStressorList, selectStressors, SCHED_SET } from '../../src/macro/stressors.ts';

/** `stress-ng --stressors` of Debian 12's stress-ng 0.15.06, captured on this machine. */
const LIST_0_15_06 = parseStressorList(readFileSync(new URL('./fixtures/stressors-0.15.06.txt', import.meta.url), 'utf8'));
const installed = { version: '0.15.06', stressors: LIST_0_15_06 };

test('the version number is read from stress-ng --version', () => {
  assert.equal(parseStressNgVersion('stress-ng, version 0.15.06 (gcc 12.2.0, x86_64 Linux 6.1.0-18-amd64)\n'), '0.15.06');
  assert.throws(() => parseStressNgVersion('command not found'), /cannot find a version number/);
});

test('stress-ng 0.15.06 lists 303 stressors', () => {
  assert.equal(LIST_0_15_06.length, 303);
});

test('--set sched on stress-ng 0.15.06 lists the five stressors it lacks as unavailable, with the version', () => {
  const sel = selectStressors({ stressors: [], sets: ['sched'] }, installed);
  assert.deepEqual(sel.available, ['fifo', 'futex', 'mq', 'msg', 'mutex', 'poll', 'pthread', 'race-sched', 'schedpolicy', 'switch', 'tee', 'yield']);
  assert.deepEqual(sel.unavailable, ['cpu-sched', 'flipflop', 'mtx', 'prio-inv', 'schedmix'].map((s) => ({ stressor: s, reason: 'not in stress-ng 0.15.06' })));
  assert.equal(SCHED_SET.length, 17);
});

test('an explicitly named stressor that does not exist is an error naming the flag', () => {
  assert.throws(() => selectStressors({ stressors: ['fifoo'], sets: [] }, installed), /--stressor fifoo: stress-ng 0\.15\.06 has no stressor 'fifoo'/);
});

test('explicit stressors come first and a set does not repeat them', () => {
  const sel = selectStressors({ stressors: ['yield', 'fifo', 'yield'], sets: ['sched'] }, installed);
  assert.deepEqual(sel.available.slice(0, 3), ['yield', 'fifo', 'futex']);
  assert.equal(sel.available.filter((s) => s === 'yield').length, 1);
});

test('no stressor and no set asks for one; an unknown set lists the known ones', () => {
  assert.throws(() => selectStressors({ stressors: [], sets: [] }, installed), /--stressor NAME \(repeatable\) or --set sched/);
  assert.throws(() => selectStressors({ stressors: [], sets: ['io'] }, installed), /--set io: unknown set; known sets: sched/);
});

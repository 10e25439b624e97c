import assert from 'node:assert/strict';
import { test } from 'node:test';
import { selectProfiles } from '../../src/bench/profiles.ts';
import { closest, editDistance } from '../../src/format/suggest.ts';
import { selectStressors } from '../../src/macro/stressors.ts';

test('edit distance matches the textbook values', () => {
  assert.equal(editDistance('kitten', 'sitting'), 3);
  assert.equal(editDistance('flaw', 'lawn'), 2);
  assert.equal(editDistance('', 'abc'), 3);
  assert.equal(editDistance('getpid', 'getppid'), 1);
});

test('only names within a third of the word are suggested, the closest first', () => {
  assert.deepEqual(closest('getpid', ['getppid', 'sched_yield']), ['getppid']);
  assert.deepEqual(closest('xyz', ['getppid']), []);
  assert.deepEqual(closest('mutx', ['mutex', 'mtx', 'fifo']), ['mutex', 'mtx']);
});

test('a mistyped profile or stressor says which known name it probably means', () => {
  assert.throws(() => selectProfiles(['getpid']), /unknown profile 'getpid' in --profile \(did you mean 'getppid'\?\); known profiles: /);
  assert.throws(() => selectProfiles(['nothing-like-it']), (e: Error) => !e.message.includes('did you mean'));
  assert.throws(() => selectStressors({ stressors: ['futx'], sets: [] }, { version: '0.15.06', stressors: ['futex', 'fifo', 'yield'] }), /has no stressor 'futx' \(did you mean 'futex'\?\)/);
});

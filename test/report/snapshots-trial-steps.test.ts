/** The step lines `hintlab trial` prints on stderr, as a snapshot of hand-built step events. */
import { test } from 'node:test';
import { stepEventLine } from '../../src/report/trial-steps.ts';
import type { StepEvent } from '../../src/trial/request.ts';
import { assertSnapshot } from './snapshot.ts';

test('each trial step prints a line as it starts, and as it ends with its wall time and what it did, or how it failed', () => {
  const events: StepEvent[] = [
    { kind: 'start', index: 1, total: 5, name: 'build-A', title: 'build A (the tree)' },
    { kind: 'end', index: 1, total: 5, step: { name: 'build-A', title: 'build A (the tree)', state: 'done', seconds: 1003.4, key: 'k', summary: 'built in 1003 s, 1840 objects compiled' } },
    { kind: 'end', index: 2, total: 5, step: { name: 'codegen', title: 'codegen', state: 'reused', seconds: 0.23, key: 'k', summary: '2 functions changed' } },
    { kind: 'end', index: 3, total: 5, step: { name: 'hunk-1', title: 'hunk 1 alone', state: 'done', seconds: 21.06, key: 'k', summary: 'built in 21 s' } },
    { kind: 'failed', index: 4, total: 5, name: 'behave', title: 'behave', seconds: 16.2, error: 'qemu exited', interrupted: false },
    { kind: 'failed', index: 5, total: 5, name: 'vm', title: 'vm', seconds: 79, error: 'stopped', interrupted: true },
  ];
  assertSnapshot('trial-step-lines', events.map(stepEventLine).join(''));
});

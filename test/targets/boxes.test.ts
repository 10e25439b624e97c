/** The box fan-out's labels and its one progress line over every box. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { boxLabel, boxProgress, hostTags } from '../../src/targets/boxes.ts';
import { parseSshUrl } from '../../src/targets/ssh-address.ts';

test('a box is tagged by its host, or host:port where two boxes share a host', () => {
  const addresses = ['ssh://lab@box1', 'ssh://box2:2222', 'ssh://box2:2223'].map((u) => parseSshUrl(u));
  assert.deepEqual(hostTags(addresses), ['box1', 'box2:2222', 'box2:2223']);
});

test('a run label ends in @tag only when several boxes run, and a run without a label is named by its box', () => {
  assert.equal(boxLabel('A', 'box1', false), 'A');
  assert.equal(boxLabel('A', 'box1', true), 'A@box1');
  assert.equal(boxLabel(null, 'box1', true), 'box1');
  assert.equal(boxLabel(null, 'box1', false), null);
});

test('the progress line sums every box, starting from each box\'s planned total, and names the box that last reported', () => {
  const lines: string[] = [];
  const progress = boxProgress([4, 6], (done, total, what) => lines.push(`${done}/${total} ${what}`));
  progress(1, 'box2')(1, 6, 'cpu');
  progress(0, 'box1')(2, 4, 'futex');
  progress(1, 'box2')(3, 7, 'pipe');
  assert.deepEqual(lines, ['1/10 box2 cpu', '3/10 box1 futex', '5/11 box2 pipe']);
});

/** Runs measured on boxes over ssh (`bench --target`) never mix with another machine's unnoticed. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ComparisonRefused } from '../../src/compare/checks.ts';
import { compare } from '../../src/compare/compare.ts';
import { hostEnvironment, makeRun } from './fixtures.ts';

const A = [100, 101, 99, 100, 100, 102, 98];
const onBox = (url: string, host: string) => ({ ...hostEnvironment({ host }), where: 'remote', remote: { hostname: host, url } });

test('runs on two boxes are refused, naming the hostname and the ssh address of each', () => {
  const a = makeRun({ id: 1, values: { x: A }, environment: onBox('ssh://lab@box1', 'box1') });
  const b = makeRun({ id: 2, values: { x: A }, environment: onBox('ssh://lab@box2', 'box2') });
  assert.throws(
    () => compare({ a, b }),
    (err: unknown) =>
      err instanceof ComparisonRefused &&
      err.message.includes("hostname: A = 'box1', B = 'box2'") &&
      err.message.includes("remote.url: A = 'ssh://lab@box1', B = 'ssh://lab@box2'"),
  );
});

test('a run on a box and one on this machine are refused even when the hostnames agree', () => {
  const a = makeRun({ id: 1, values: { x: A }, environment: hostEnvironment({ host: 'lab1' }) });
  const b = makeRun({ id: 2, values: { x: A }, environment: onBox('ssh://lab1', 'lab1') });
  assert.throws(() => compare({ a, b }), /the runs' checked environment differs.*\n {2}remote\.url: A = 'not recorded', B = 'ssh:\/\/lab1'\n/);
});

test('two runs on the same box compare, the address shown side by side', () => {
  const a = makeRun({ id: 1, values: { x: A }, environment: onBox('ssh://lab@box1', 'box1') });
  const b = makeRun({ id: 2, values: { x: A }, environment: onBox('ssh://lab@box1', 'box1') });
  const row = compare({ a, b }).environment.find((f) => f.field === 'remote.url');
  assert.deepEqual(row, { field: 'remote.url', kind: 'checked', values: { A: 'ssh://lab@box1', B: 'ssh://lab@box1' }, same: true });
});

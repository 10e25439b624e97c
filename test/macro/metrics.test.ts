import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { classifyExtraMetric, macroRound } from '../../src/macro/metrics.ts';
import { readStressNgYaml } from '../../src/macro/yaml.ts';

const FIXTURES = new URL('./fixtures/', import.meta.url).pathname;

test('the extra metrics of the sched set in stress-ng 0.15.06 get their unit and direction', () => {
  // Every stressor-specific key the available sched stressors wrote on this machine.
  assert.deepEqual(classifyExtraMetric('fifo-8-byte-writes-per-sec'), { unit: 'writes/s', direction: 'higher-is-better' });
  assert.deepEqual(classifyExtraMetric('mb-per-sec-tee-rate'), { unit: 'MB/s', direction: 'higher-is-better' });
  assert.deepEqual(classifyExtraMetric('nanosecs-per-mutex'), { unit: 'ns', direction: 'lower-is-better' });
  assert.deepEqual(classifyExtraMetric('nanosecs-per-context-switch-pipe-method'), { unit: 'ns', direction: 'lower-is-better' });
  assert.deepEqual(classifyExtraMetric('ns-duration-per-schedyield-call'), { unit: 'ns', direction: 'lower-is-better' });
  assert.deepEqual(classifyExtraMetric('nanosecs-to-start-a-pthread'), { unit: 'ns', direction: 'lower-is-better' });
  assert.deepEqual(classifyExtraMetric('-of-2048-pthreads-created'), { unit: '%', direction: 'higher-is-better' });
});

test('a metric whose name gives no unit is left unclassified rather than guessed', () => {
  assert.equal(classifyExtraMetric('cache-misses'), null);
  assert.equal(classifyExtraMetric('pipe-size'), null);
});

test('a macro round stores bogo-ops/s (real time) as its value with ops 1 and total = value', () => {
  const m = readStressNgYaml(join(FIXTURES, 'fifo-1-0.15.06.yaml'), 'fifo');
  const { round, unclassified } = macroRound(m, { seq: 7, subject: 'fifo@1', repeat: 2 });
  assert.deepEqual(unclassified, []);
  assert.equal(round.seq, 7);
  assert.equal(round.index, 2);
  assert.equal(round.subject, 'fifo@1');
  assert.equal(round.unit, 'bogo-ops/s');
  assert.equal(round.direction, 'higher-is-better');
  assert.equal(round.value, 367459.455001);
  assert.equal(round.ops, 1);
  assert.equal(round.total, 367459.455001);
  assert.deepEqual(round.metrics, [
    { name: 'bogo-ops', value: 735573, unit: 'bogo-ops', direction: 'higher-is-better' },
    { name: 'bogo-ops-per-second-usr-sys-time', value: 267618.792943, unit: 'bogo-ops/s (usr+sys time)', direction: 'higher-is-better' },
    { name: 'wall-clock-time', value: 2.00178, unit: 's', direction: 'lower-is-better' },
    { name: 'user-time', value: 0.270085, unit: 's', direction: 'lower-is-better' },
    { name: 'system-time', value: 2.4785, unit: 's', direction: 'lower-is-better' },
    { name: 'cpu-usage-per-instance', value: 137.307044, unit: '%', direction: 'lower-is-better' },
    { name: 'max-rss', value: 2516, unit: 'KB', direction: 'lower-is-better' },
    { name: 'fifo-8-byte-writes-per-sec', value: 367993.558143, unit: 'writes/s', direction: 'higher-is-better' },
  ]);
});

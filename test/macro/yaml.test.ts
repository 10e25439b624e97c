import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseStressNgYaml, readStressNgYaml, StressNgYamlError } from '../../src/macro/yaml.ts';

const FIXTURES = new URL('./fixtures/', import.meta.url).pathname;
const FIFO = join(FIXTURES, 'fifo-1-0.15.06.yaml');
const PTHREAD = join(FIXTURES, 'pthread-2-0.15.06.yaml');

test('the real stress-ng 0.15.06 YAML of fifo yields its exact numbers', () => {
  const m = readStressNgYaml(FIFO, 'fifo');
  assert.equal(m.stressor, 'fifo');
  assert.equal(m.bogoOps, 735573);
  assert.equal(m.bogoOpsPerSecRealTime, 367459.455001);
  assert.equal(m.bogoOpsPerSecUsrSysTime, 267618.792943);
  assert.equal(m.wallSeconds, 2.00178);
  assert.equal(m.userSeconds, 0.270085);
  assert.equal(m.systemSeconds, 2.4785);
  assert.deepEqual(m.fields.slice(-3), [
    ['cpu-usage-per-instance', 137.307044],
    ['max-rss', 2516],
    ['fifo-8-byte-writes-per-sec', 367993.558143],
  ]);
});

test('the real pthread YAML keeps stress-ng\'s key for "% of 2048 pthreads created"', () => {
  const m = readStressNgYaml(PTHREAD, 'pthread');
  assert.equal(m.bogoOps, 8211);
  assert.deepEqual(m.fields.slice(-2), [
    ['nanosecs-to-start-a-pthread', 63477.982619],
    ['-of-2048-pthreads-created', 100],
  ]);
});

function expectError(text: string, pattern: RegExp, stressor = 'fifo'): void {
  assert.throws(() => parseStressNgYaml(text, '/runs/round-3.yaml', stressor), (err: unknown) => {
    assert.ok(err instanceof StressNgYamlError);
    assert.match(err.message, /^\/runs\/round-3\.yaml/);
    assert.match(err.message, pattern);
    return true;
  });
}

test('a YAML file cut short in the metrics is rejected as truncated, naming the file', () => {
  const full = readFileSync(FIFO, 'utf8');
  const cut = full.slice(0, full.indexOf('wall-clock-time'));
  expectError(cut, /truncated YAML: it does not end with stress-ng's '\.\.\.' end-of-document marker/);
});

test('a YAML file cut in the middle of a number is rejected as truncated', () => {
  const full = readFileSync(FIFO, 'utf8');
  expectError(full.slice(0, full.indexOf('735573') + 3), /truncated YAML.*last line \d+: 'bogo-ops: 735'/);
});

test('malformed YAML is rejected with the file, line and column', () => {
  const bad = readFileSync(FIFO, 'utf8').replace('      bogo-ops: 735573', '      bogo-ops: [735573');
  // The flow sequence opened on line 29 (bogo-ops) runs into line 30, which is not indented enough for it.
  expectError(bad, /^\/runs\/round-3\.yaml:30:\d+: malformed YAML: Flow sequence/);
});

test('an empty YAML file is rejected', () => {
  expectError('', /the YAML file is empty/);
});

test('a metric that is not a number is rejected, naming the key', () => {
  const bad = readFileSync(FIFO, 'utf8').replace('user-time: 0.270085', 'user-time: n/a');
  expectError(bad, /metrics of 'fifo': 'user-time' is "n\/a", not a number/);
});

test('a file without the stressor that ran names the entries it has', () => {
  expectError(readFileSync(FIFO, 'utf8'), /no metrics for stressor 'yield' \(entries: fifo\)/, 'yield');
});

test('an entry lacking a standard field is rejected', () => {
  const bad = readFileSync(FIFO, 'utf8').replace(/ *system-time: .*\n/, '');
  expectError(bad, /metrics of 'fifo' lack 'system-time'/);
});

test('a missing YAML file says stress-ng wrote none', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hintlab-yaml-'));
  assert.throws(() => readStressNgYaml(join(dir, 'none.yaml'), 'fifo'), /none\.yaml: stress-ng wrote no YAML file/);
  writeFileSync(join(dir, 'x.yaml'), 'system-info:\n  a: 1\n...\n');
  assert.throws(() => readStressNgYaml(join(dir, 'x.yaml'), 'fifo'), /x\.yaml: no 'metrics' list/);
});

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { costByDefault, isHintOnly } from '../../src/trial/hint-only.ts';

const diff = (minus: string[], plus: string[]) =>
  ['--- a/kernel/sched/core.c', '+++ b/kernel/sched/core.c', '@@ -10,3 +10,3 @@', ' ctx', ...minus.map((l) => `-${l}`), ...plus.map((l) => `+${l}`), ' ctx', ''].join('\n');

test('added, removed and swapped hints are hint-only; the docs example patch is', () => {
  assert.equal(isHintOnly([diff(['\tif (pid < 0)'], ['\tif (unlikely(pid < 0))'])]), true);
  assert.equal(isHintOnly([diff(['\tif (likely(p->se.on_rq))'], ['\tif (p->se.on_rq)'])]), true);
  assert.equal(isHintOnly([diff(['\tif (likely(x && y))'], ['\tif (unlikely(x &&  y))'])]), true);
  assert.equal(isHintOnly([readFileSync(new URL('../../docs/examples/hint.patch', import.meta.url), 'utf8')]), true);
});

test('any other change, a whitespace-only change or an empty patch is not', () => {
  assert.equal(isHintOnly([diff(['\tif (pid < 0)'], ['\tif (unlikely(pid <= 0))'])]), false);
  assert.equal(isHintOnly([diff(['\tif (pid < 0)'], ['\tif (unlikely(pid < 0))', '\t\tcount++;'])]), false);
  assert.equal(isHintOnly([diff(['\tif (pid < 0)'], ['\tif (pid  <  0)'])]), false);
  assert.equal(isHintOnly(['']), false);
  assert.equal(isHintOnly([diff(['\tif (pid < 0)'], ['\tif (unlikely(pid < 0))']), diff(['\tx = 1;'], ['\tx = 2;'])]), false);
});

test('__builtin_expect with 0 or 1 is a hint too; with another value or argument it is a change', () => {
  assert.equal(isHintOnly([diff(['\tif (!param || pid < 0)'], ['\tif (__builtin_expect(!param || pid < 0, 1))'])]), true);
  assert.equal(isHintOnly([diff(['\tif (__builtin_expect(x, 0))'], ['\tif (__builtin_expect(x, 1))'])]), true);
  assert.equal(isHintOnly([diff(['\tif (x)'], ['\tif (__builtin_expect(x, y))'])]), false);
});

test('the cost model runs for a hint-only patch under TCG unless --no-cost; as asked otherwise; never by default under KVM', () => {
  const hint = diff(['\tif (pid < 0)'], ['\tif (unlikely(pid < 0))']);
  const other = diff(['\tx = 1;'], ['\tx = 2;']);
  assert.deepEqual(costByDefault(undefined, false, [hint]), { on: true, note: 'the patch only changes branch hints: every boot also counts what they change with the cost model (--cost; --no-cost to skip it)' });
  assert.deepEqual(costByDefault(false, false, [hint]), { on: false, note: null });
  assert.deepEqual(costByDefault(undefined, true, [hint]), { on: false, note: null });
  assert.deepEqual(costByDefault(undefined, false, [other]), { on: false, note: null });
  assert.deepEqual(costByDefault(true, false, [other]), { on: true, note: null });
});

test('a removed line that reads like a file header is a removed line: the patch that drops it is not hint-only', () => {
  const patch = ['--- a/kernel/k.c', '+++ b/kernel/k.c', '@@ -1,2 +1,1 @@', '--- count;', '-if (x)', '+if (unlikely(x))', ''].join('\n');
  assert.equal(isHintOnly([patch]), false);
  assert.equal(isHintOnly([patch.replace('@@ -1,2 +1,1 @@\n--- count;\n', '@@ -1 +1 @@\n')]), true);
});

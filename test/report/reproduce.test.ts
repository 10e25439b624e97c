/**
 * The reproduce lines of every report: each distinct command once, paths a
 * reader can use, and the database the runs came from.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Comparison } from '../../src/compare/types.ts';
import { lkmlReport } from '../../src/report/lkml.ts';
import { argvText, reproduceCommands, type ReproduceContext, unquote } from '../../src/report/reproduce.ts';
import { shellLine } from '../../src/shell.ts';
import { abaComparison, CTX } from './fixtures.ts';

const CWD = '/home/ana/lab';
const ctx = (over: Partial<ReproduceContext> = {}): ReproduceContext => ({ db: null, cwd: CWD, home: '/home/ana', ...over });

/** An A/B/A whose three runs were all made by one `hintlab vm` typed as `argv` in `cwd`. */
function vmComparison(argv: string[], cwd: string | null = CWD): Comparison {
  const c = abaComparison({ unit: 'instructions/call' });
  c.runs.forEach((r, i) => {
    r.label = ['vm-A-1', 'vm-B-1', 'vm-A-2'][i]!;
    r.kind = 'vm';
    r.command = shellLine(['hintlab', ...argv]);
    r.params = { ...r.params, extra: cwd === null ? {} : { invocation: { argv, cwd } } };
  });
  return c;
}

const VM = ['vm', '--kernel', 'A=/tmp/hintlab-test-6vuivy/build-A', '--kernel', 'B=/tmp/hintlab-test-6vuivy/build-B', '--icount', '--accel', 'tcg'];

test('one hintlab vm that made all three runs is listed once, then the compare command', () => {
  assert.deepEqual(reproduceCommands(vmComparison(VM), ctx()), [
    'hintlab vm --kernel A=/tmp/hintlab-test-6vuivy/build-A --kernel B=/tmp/hintlab-test-6vuivy/build-B --icount --accel tcg',
    'hintlab compare vm-A-1 vm-B-1 vm-A-2 --threshold 1 --alpha 0.05 --correction holm',
  ]);
});

test('relative paths stay as typed; absolute ones under the directory print relative, under home as ~/', () => {
  const argv = ['vm', '--kernel', 'A=build-A', '--kernel=B=/home/ana/lab/kernels/B', '--db', '/home/ana/.local/share/x.db', '--profile', 'getppid'];
  assert.equal(argvText(argv, CWD, ctx()), 'hintlab vm --kernel A=build-A --kernel=B=kernels/B --db ~/.local/share/x.db --profile getppid');
  assert.equal(argvText(['bench', '--db', '/srv/results/h.db'], CWD, ctx()), 'hintlab bench --db /srv/results/h.db', 'a shared path means something');
  assert.equal(argvText(['bench', '--label', 'a b'], CWD, ctx()), "hintlab bench --label 'a b'");
});

test('a relative path typed in another directory is resolved against that directory', () => {
  assert.equal(argvText(['vm', '--kernel', 'A=../kernels/A'], '/home/ana/lab/sub', ctx()), 'hintlab vm --kernel A=kernels/A');
  // A temporary directory prints as it is: the line runs on this machine as long as the directory is there.
  assert.equal(argvText(['vm', '--kernel', 'A=build'], '/tmp/x', ctx()), 'hintlab vm --kernel A=/tmp/x/build');
});

test('runs from a non-default database: every line names it, so the compare line finds the runs', () => {
  const lines = reproduceCommands(vmComparison(['vm', '--kernel', 'A=a', '--kernel', 'B=b']), ctx({ db: 'ab.db' }));
  assert.deepEqual(lines, [
    'hintlab vm --kernel A=a --kernel B=b --db ab.db',
    'hintlab compare vm-A-1 vm-B-1 vm-A-2 --threshold 1 --alpha 0.05 --correction holm --db ab.db',
  ]);
  const typed = reproduceCommands(vmComparison(['vm', '--kernel', 'A=a', '--db', '/tmp/q/ab.db']), ctx({ db: '/tmp/q/ab.db' }));
  assert.deepEqual(typed, ['hintlab vm --kernel A=a --db /tmp/q/ab.db', 'hintlab compare vm-A-1 vm-B-1 vm-A-2 --threshold 1 --alpha 0.05 --correction holm --db /tmp/q/ab.db']);
});

test('runs stored before invocations were recorded: the stored command is split back into words', () => {
  const c = vmComparison(['vm', '--kernel', 'A=/tmp/t/A', '--label-prefix', "it's"], null);
  assert.deepEqual(reproduceCommands(c, ctx()), [
    "hintlab vm --kernel A=/tmp/t/A --label-prefix 'it'\\''s'",
    'hintlab compare vm-A-1 vm-B-1 vm-A-2 --threshold 1 --alpha 0.05 --correction holm',
  ]);
  assert.equal(unquote("'it'\\''s'"), "it's");
  assert.equal(unquote('"a b"\\ c'), 'a b c');
});

test('distinct bench commands keep their run order', () => {
  const lines = reproduceCommands(abaComparison(), ctx());
  assert.deepEqual(lines.slice(0, 3), [
    'hintlab bench --cpu 1 --rounds 15 --label stock',
    'hintlab bench --cpu 1 --rounds 15 --label patched',
    'hintlab bench --cpu 1 --rounds 15 --label stock-again',
  ]);
});

test('the lkml block of a vm A/B/A lists the vm command once, with its paths and the database as typed', () => {
  const text = lkmlReport(vmComparison(VM), { ...CTX, reproduce: ctx({ db: '/tmp/hintlab-test-6vuivy/lab.db' }) });
  const repro = text.slice(text.indexOf('Reproduce:'));
  assert.equal(repro.match(/hintlab vm /g)?.length, 1, repro);
  assert.doesNotMatch(repro, /</);
  assert.match(repro.replace(/ \\\n\s*/g, ' '), /hintlab vm --kernel A=\/tmp\/hintlab-test-6vuivy\/build-A --kernel B=\/tmp\/hintlab-test-6vuivy\/build-B --icount --accel tcg --db \/tmp\/hintlab-test-6vuivy\/lab\.db\n/);
  assert.match(repro.replace(/ \\\n\s*/g, ' '), /hintlab compare vm-A-1 vm-B-1 vm-A-2 .* --db \/tmp\/hintlab-test-6vuivy\/lab\.db\n/);
});

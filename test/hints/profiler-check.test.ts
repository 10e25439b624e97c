/**
 * gcov and the branch profiler of the same workload together: every
 * gcov-derived proposal says whether the profiler agrees, a proposal the
 * profiler contradicts is skipped, and an `if` gcov cannot give a direction
 * is proposed from the profiler alone. gcov's counts come from a real
 * `gcc --coverage -O2` run of fixtures/userspace/flow.c; the branch_all
 * file is written here in the kernel's format (kernel/trace/trace_branch.c),
 * with counts chosen per row: the real one for RET and LBL, a weaker one
 * for BRK1 and an opposite one for ELSE.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hintlab, markerLine } from './helpers.ts';

const FIXTURE = new URL('./fixtures/userspace/flow.c', import.meta.url).pathname;
const line = (m: string): number => markerLine(readFileSync(FIXTURE, 'utf8'), m);
const N = 100_000;

let dir = '';

/** One branch_all row: miss = condition false, hit = true. */
const row = (miss: number, hit: number, fn: string, marker: string): string =>
  `${String(miss).padStart(8)} ${String(hit).padStart(8)} ${String(Math.round((100 * miss) / (miss + hit))).padStart(3)} ${fn.padEnd(30)} ${'flow.c'.padEnd(20)} ${line(marker)}`;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'hintlab-profiler-check-'));
  copyFileSync(FIXTURE, join(dir, 'flow.c'));
  execFileSync('gcc', ['--coverage', '-O2', '-o', 'flow', 'flow.c'], { cwd: dir });
  execFileSync(join(dir, 'flow'), [String(N)], { cwd: dir, stdio: 'ignore' });
  execFileSync('gcov', ['-j', '-b', 'flow.c'], { cwd: dir, stdio: 'ignore' });
  writeFileSync(
    join(dir, 'branch_all'),
    [
      '   miss      hit    %        Function                  File              Line',
      ' ------- --------- - --------                          ----              ----',
      row(N - 100, 100, 'ret_merged', 'RET'),
      row(N - 3000, 3000, 'break_loop', 'BRK1'),
      row(200, N / 2 - 200, 'if_in_else', 'ELSE'),
      row(N - 100, 100, 'label_after', 'LBL'),
      '',
    ].join('\n'),
  );
});

after(() => rmSync(dir, { recursive: true, force: true }));

interface Row {
  line: number;
  confidence: string;
  verdict: { kind: string; hint?: string; reason?: string; detail?: string };
  profilerCheck: { agreement: string; executions: number; thenCount: number } | null;
}

async function run(format: 'json' | 'table'): Promise<string> {
  const r = await hintlab(['hints', `w=${join(dir, 'flow.gcov.json.gz')}`, `w=${join(dir, 'branch_all')}`, '--src', dir, '--format', format]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

describe('gcov proposals checked by the branch profiler', () => {
  test('agreeing, weaker and contradicting profiler counts, and the profiler as the only source', async () => {
    const rows = (JSON.parse(await run('json')) as { rows: Row[] }).rows;
    const at = (m: string): unknown[] => {
      const r = rows.find((x) => x.line === line(m));
      return [r?.verdict.kind === 'propose' ? r.verdict.hint : r?.verdict.reason, r?.confidence, r?.profilerCheck?.agreement ?? null];
    };
    assert.deepEqual(at('RET'), ['unlikely', 'flow', 'agrees']);
    assert.deepEqual(at('BRK1'), ['unlikely', 'flow', 'weaker']);
    assert.deepEqual(at('ELSE'), ['profiler-disagrees', 'flow', 'disagrees']);
    assert.deepEqual(at('LBL'), ['unlikely', 'profiler', null]);
    assert.match(rows.find((x) => x.line === line('ELSE'))?.verdict.detail ?? '', /gcov's counts say unlikely; the branch profiler ran the then-branch in 99\.60% of 50000/);
  });

  test('the table has a profiler column and sums the check up', async () => {
    const table = await run('table');
    assert.match(table, /^file:line +function +executions +then +proposal +confidence +workloads +profiler$/m);
    assert.match(table, new RegExp(`^flow\\.c:${line('RET')} .* flow +w:${N} +agrees$`, 'm'));
    assert.match(table, new RegExp(`^flow\\.c:${line('BRK1')} .* weaker 3\\.00%$`, 'm'));
    assert.match(table, new RegExp(`^flow\\.c:${line('LBL')} .* profiler +w:${N} +source$`, 'm'));
    assert.match(table, /branch profiler on 3 gcov-derived proposals: 1 agree, 1 same direction under the bias, 1 disagree \(skipped\); \d+ without a profiler row/);
  });
});

describe('--path with branch profiler rows', () => {
  test('a row of a file outside --path is not taken for its namesake inside it', async () => {
    const tree = mkdtempSync(join(tmpdir(), 'hintlab-namesakes-'));
    try {
      for (const d of ['a', 'b']) mkdirSync(join(tree, d));
      writeFileSync(join(tree, 'a', 'x.c'), 'int f(int v)\n{\n\tif (v)\n\t\treturn 1;\n\treturn 0;\n}\n');
      writeFileSync(join(tree, 'b', 'x.c'), `${'\n'.repeat(20)}int g(int v)\n{\n\tif (v)\n\t\treturn 1;\n\treturn 0;\n}\n`);
      const profile = join(tree, 'branch_all');
      writeFileSync(profile, '   miss      hit    %        Function                  File              Line\n    1000        0   100 g                              x.c                  23\n');
      const r = await hintlab(['hints', `w=${profile}`, '--src', tree, '--path', 'a', '--format', 'json']);
      assert.equal(r.code, 0, r.stderr);
      const unmatched = (JSON.parse(r.stdout) as { unmatchedProfilerRows: { reason: string }[] }).unmatchedProfilerRows;
      assert.equal(unmatched.length, 1, 'the row is listed as unmatched, not refused as a source mismatch');
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });
});

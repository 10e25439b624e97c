/**
 * Branch profiler files (hand-written in the format of the kernel's
 * kernel/trace/trace_branch.c) matched against a small source tree of
 * Debian 6.12 excerpts and hand-written files with over-long names.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseProfiler } from '../../src/hints/profiler.ts';
import { hintlab } from './helpers.ts';

const FIXTURES = new URL('./fixtures/', import.meta.url).pathname;
const TREE = join(FIXTURES, 'ktree');
const ANNOTATED = join(FIXTURES, 'profiler/branch_annotated');
const ALL = join(FIXTURES, 'profiler/branch_all');

interface Row {
  file: string;
  line: number;
  function: string;
  executions: number;
  thenCount: number;
  confidence: string;
  verdict: { kind: string; hint?: string; reason?: string; fix?: string | null };
}

async function analyse(): Promise<{ rows: Row[]; unmatchedProfilerRows: { func: string; line: number; reason: string }[] }> {
  const r = await hintlab(['hints', `kern=${ANNOTATED}`, `kern=${ALL}`, '--src', TREE, '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

describe('branch profiler files', () => {
  test('rows read as the kernel prints them, including X and constant rows', () => {
    const rows = parseProfiler('branch_annotated', readFileSync(ANNOTATED, 'utf8'));
    assert.deepEqual(
      rows.map((r) => [r.first, r.second, r.func, r.file, r.line]),
      [
        [3, 5000, 'event_trigger_separate_filter_', 'trace_events_trigger', 9],
        [4990, 10, 'event_trigger_separate_filter_', 'trace_events_trigger', 11],
        [0, 0, 'cpu_online', 'cpumask.h', 1103],
        [0, 0, 'never_ran', 'select.c', 90],
      ],
    );
  });

  test('branch_all counts propose hints with profiler confidence, through broken signatures and SYSCALL_DEFINE', async () => {
    const { rows } = await analyse();
    const proposals = rows.filter((r) => r.verdict.kind === 'propose').map((r) => `${r.file}:${r.line} ${r.function} ${r.verdict.hint} ${r.thenCount}/${r.executions} ${r.confidence}`);
    assert.deepEqual(proposals, [
      'kernel/trace/trace_events_trigger.c:15 event_trigger_separate_filter_and_more unlikely 0/10000 profiler',
      'kernel/sched/syscalls.c:18 __do_sys_sched_getscheduler unlikely 0/5000 profiler',
      'lib/b/core.c:11 other_thing unlikely 0/3000 profiler',
      'fs/select.c:15 core_sys_select unlikely 0/2000 profiler',
      'fs/select.c:23 core_sys_select unlikely 0/2000 profiler',
      'fs/select.c:51 core_sys_select unlikely 1/2000 profiler',
    ]);
  });

  test('branch_annotated: a contradicted unlikely() is flagged with the fix, a right likely() is skipped', async () => {
    const { rows } = await analyse();
    const at = (line: number): Row | undefined => rows.find((r) => r.file === 'kernel/trace/trace_events_trigger.c' && r.line === line);
    // unlikely(!param): correct 3, incorrect 5000 -> the condition held 5000 times.
    assert.deepEqual([at(9)?.verdict.kind, at(9)?.verdict.fix, at(9)?.thenCount, at(9)?.executions], ['contradicted', 'likely', 5000, 5003]);
    assert.deepEqual([at(11)?.verdict.kind, at(11)?.verdict.reason, at(11)?.thenCount], ['skip', 'already-annotated', 4990]);
    assert.equal(at(13)?.verdict.reason, 'compile-time');
    assert.equal(at(17)?.verdict.reason, 'parse-error');
  });

  test('rows that fit no if, or several, are reported and never guessed', async () => {
    const { unmatchedProfilerRows } = await analyse();
    const reasons = Object.fromEntries(unmatchedProfilerRows.map((u) => [`${u.func}:${u.line}`, u.reason]));
    assert.equal(reasons['do_thing:5'], 'ambiguous: lib/a/core.c:5 do_thing; lib/b/core.c:5 do_thing');
    assert.match(reasons['core_sys_select:19'] ?? '', /^no `if` of core_sys_select at this line/);
    assert.match(reasons['never_ran:90'] ?? '', /^no `if` of never_ran/);
    assert.equal(reasons['gone:11'], 'no file named foo.c in the source tree');
    assert.equal(reasons['cpu_online:1103'], 'no file named cpumask.h in the source tree');
  });

  test('a row past the end of its only candidate file means the wrong source', async () => {
    const bad = join(tmpdir(), `hintlab-branch_all-${process.pid}`);
    const lines = readFileSync(ALL, 'utf8').split('\n').slice(0, 2);
    writeFileSync(bad, `${lines.join('\n')}\n    2000        0   0 core_sys_select                select.c             500\n`);
    const r = await hintlab(['hints', bad, '--src', TREE]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /source fs\/select\.c does not match the branch profile .*:3: line 500 \(core_sys_select\) is past its end \(108 lines\)/);
  });

  test('a file that is neither gcov JSON nor profiler output is refused, named', async () => {
    const bad = join(tmpdir(), `hintlab-notprofiler-${process.pid}`);
    writeFileSync(bad, 'hello\n');
    const r = await hintlab(['hints', bad, '--src', TREE]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /hintlab-notprofiler-\d+: neither gcov JSON .*, a branch profiler file .* nor a branch set/);
  });
});

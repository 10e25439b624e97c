/**
 * What tree-sitter's C grammar makes of kernel code, on excerpts of Debian's
 * linux-source-6.12: `__user` breaks core_sys_select's signature and
 * SYSCALL_DEFINE leaves a bare body, yet their `if`s are analysed.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { blankLines } from '../../src/hints/source-lines.ts';
import { cParser, nameFromHeader, scanSource } from '../../src/hints/parse.ts';
import type { FileSites } from '../../src/hints/types.ts';
import { hintlab } from './helpers.ts';

const TREE = new URL('./fixtures/ktree/', import.meta.url).pathname;

async function scan(file: string): Promise<FileSites> {
  return scanSource(await cParser(), file, readFileSync(join(TREE, file), 'utf8'));
}

async function scanText(text: string): Promise<FileSites> {
  return scanSource(await cParser(), 'x.c', text);
}

describe('parsing kernel C', () => {
  test('core_sys_select: signature broken by __user, every if analysed and named', async () => {
    const f = await scan('fs/select.c');
    const sel = f.sites.filter((s) => s.fn === 'core_sys_select');
    assert.deepEqual(
      sel.map((s) => [s.line, s.skip]),
      [15, 23, 33, 36, 41, 51, 61, 63, 65, 70, 76].map((l) => [l, null]),
    );
    const first = sel[0];
    assert.equal(first?.condition, 'n < 0');
    // Lines 19 rcu_read_lock(), 20 files_fdtable() and 22 rcu_read_unlock() call functions (gcov may count
    // an inlined callee's return into them); 21 `max_fds = fdt->max_fds;` does not.
    const flow = { terms: [{ line: 19, sign: 1, then: [20, 21, 22, 23], calls: [19, 20, 22] }], refused: null };
    // `goto out_nofds;` on 16 leaves; the flow past the `if` lands on the plain statements 19-22 (any that
    // compiles to nothing passes it on) or the next `if`'s condition on 23.
    const regions = { then: { first: 16, last: 16 }, else: null, next: { first: 19, last: 23 }, thenLeaves: true };
    assert.deepEqual(first.layout, { thenLine: 16, elseLine: null, flow, singleTest: true, callsFunction: false, regions });
    // signal_pending() holds unlikely() in its definition.
    assert.deepEqual(sel.find((s) => s.line === 65)?.annotation, { kind: 'whole', macro: 'signal_pending', expectTrue: false, at: { row: 64, column: 6 } });
    assert.equal(sel.find((s) => s.line === 51)?.condition.split('\n').length, 3);
    // get_fd_set() is a call; signal_pending() too, but unlikely(), IS_ENABLED() and builtins are not.
    assert.equal(sel.find((s) => s.line === 51)?.layout.callsFunction, true);
  });

  test('a SYSCALL_DEFINE body is named as the kernel names it, after DEFINE_PER_CPU', async () => {
    const f = await scan('kernel/sched/syscalls.c');
    assert.deepEqual(
      f.sites.map((s) => [s.line, s.fn, s.heuristic]),
      [
        [18, '__do_sys_sched_getscheduler', true],
        [23, '__do_sys_sched_getscheduler', true],
        [27, '__do_sys_sched_getscheduler', false],
        [29, '__do_sys_sched_getscheduler', false],
      ],
    );
  });

  test('compile-time tests, partial annotations and broken conditions are classified', async () => {
    const f = await scanText(
      [
        'int f(int n, int *p)',
        '{',
        '\tif (static_branch_likely(&k)) n++;',
        '\tif (IS_ENABLED(CONFIG_X) && n) n++;',
        '\tif (PAGE_SIZE > 4096 && sizeof(long) == 8) n++;',
        '\tif (n > sizeof(long)) n++;',
        '\tif (unlikely(n) || p) n++;',
        '\tif (!likely(p)) n++;',
        '\tif (__builtin_expect(n == 3, 0)) n++;',
        '\tif (n < offsetofend(struct user_reg, write_index)) n++;',
        '\treturn n;',
        '}',
        '#define CHECK(x) do { if (!(x)) return -1; } while (0)',
        '',
      ].join('\n'),
    );
    assert.deepEqual(
      f.sites.map((s) => [s.line, s.skip, s.annotation.kind === 'whole' ? `${s.annotation.macro}:${s.annotation.expectTrue}` : s.annotation.kind]),
      [
        [3, 'compile-time', 'none'],
        [4, 'compile-time', 'none'],
        [5, 'compile-time', 'none'],
        [6, null, 'none'],
        [7, 'partial-annotation', 'partial'],
        [8, null, 'likely:false'],
        [9, null, '__builtin_expect:false'],
        [10, 'parse-error', 'none'],
      ],
    );
    assert.deepEqual(f.macroIfs, [{ file: 'x.c', line: 13, macro: 'CHECK' }]);
  });

  test('function names from broken headers', () => {
    assert.equal(nameFromHeader('static __printf(3, 0)\nint __trace_array_vprintk(struct trace_buffer *buffer, va_list args)\n'), '__trace_array_vprintk');
    assert.equal(nameFromHeader('COMPAT_SYSCALL_DEFINE3(ioctl, unsigned int, fd, unsigned int, cmd,\n\tcompat_ulong_t, arg)'), '__do_compat_sys_ioctl');
    assert.equal(nameFromHeader('static long __sched do_pselect(int n, fd_set __user *inp)'), 'do_pselect');
  });

  test('blank and comment-only lines', () => {
    assert.deepEqual(blankLines('int a;\n\n/* x\n y */\nint b; // c\n  // d\nchar *s = "/*";\n'), [2, 3, 4, 6]);
  });
});

describe('hints --static', () => {
  test('lists early error exits of syscall implementations only, marked heuristic', async () => {
    const r = await hintlab(['hints', '--static', '--src', TREE]);
    assert.equal(r.code, 0, r.stderr);
    const rows = r.stdout.split('\n').filter((l) => l.includes('heuristic'));
    assert.deepEqual(rows.map((l) => l.split(/\s+/).slice(0, 2).join(' ')), [
      'kernel/sched/syscalls.c:18 __do_sys_sched_getscheduler',
      'kernel/sched/syscalls.c:23 __do_sys_sched_getscheduler',
    ]);
  });

  test('refuses profiles together with --static, and neither', async () => {
    assert.equal((await hintlab(['hints', '--static', 'x.gcov.json', '--src', TREE])).code, 2);
    const r = await hintlab(['hints', '--src', TREE]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /give profiles .* or --static/);
  });
});

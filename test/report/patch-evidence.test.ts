/**
 * The hint patch's evidence in every report format, from hand-built codegen
 * and hints documents (./evidence-fixtures.ts). Expected lines are worked
 * out by hand from the documents and the 72-column wrapping rule.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderText } from '../../src/report/text.ts';
import { htmlReport } from '../../src/report/html.ts';
import { jsonReport } from '../../src/report/json.ts';
import { lkmlReport } from '../../src/report/lkml.ts';
import { markdownReport } from '../../src/report/md.ts';
import { abaComparison, CTX } from './fixtures.ts';
import { codegenJson, evidence, hintRows, hintsJson, row } from './evidence-fixtures.ts';

/** The lines from the one starting with `first` up to the next blank line. */
function block(text: string, first: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(first));
  assert.ok(start >= 0, `no line starts with ${first}`);
  const end = lines.indexOf('', start);
  return lines.slice(start, end);
}

const widest = (text: string): number => Math.max(...text.split('\n').map((l) => l.length));

test('the lkml report adds the codegen sentence and the hinted ifs, most executed first, within 72 columns', () => {
  const text = lkmlReport(abaComparison(), { ...CTX, evidence: evidence() });
  // Sentence per src/codegen/render.ts: layout -> "reordered", cold 0 -> 3, path 21 -> 18; "gcc 12.2" kept together.
  assert.deepEqual(block(text, 'Code generation'), [
    'Code generation (mm/mincore.o): gcc 12.2 -O2: __do_sys_mincore',
    '  reordered, 3 instructions moved out of line to __do_sys_mincore.cold,',
    '  fall-through path 21 -> 18 instructions to return; -Os: identical.',
    '  clang-15 -O2: not installed.',
  ]);
  // 5000 executions before 2000; the skip and the contradicted annotation without a fix are not in the patch.
  // 4990 / 5000 = 99.80 %; 0 / 2000 = 0.00 %.
  assert.deepEqual(block(text, 'Branch evidence'), [
    'Branch evidence (workload syscalls; a hint needs one way in >= 99 % of',
    '  >= 1000 executions):',
    '  kernel/sched/syscalls.c:712 sched_getattr: then-branch 4990 of',
    '    5000 executions (99.80 %), unlikely() -> likely() (profiler)',
    '  fs/select.c:635 core_sys_select: then-branch 0 of 2000 executions',
    '    (0.00 %), unlikely() (lines)',
  ]);
  // Measured effect first, then codegen, then the counts, then the machine.
  const order = ['sched_getattr: 182.4', 'Code generation', 'Branch evidence', 'Machine:'].map((s) => text.indexOf(s));
  assert.deepEqual([...order].sort((a, b) => a - b), order);
  assert.ok(widest(text) <= 72);
});

test('more than five hinted ifs: the five most executed, then how many more and where they are', () => {
  // Executions 1000 * k, given in a shuffled order.
  const rows = [3, 8, 1, 6, 2, 7, 4, 5].map((k) =>
    row({ file: `f${k}.c`, line: k, fn: `fn${k}`, executions: 1000 * k, thenCount: 0, verdict: { kind: 'propose', hint: 'unlikely' } }),
  );
  const text = lkmlReport(abaComparison(), { ...CTX, evidence: evidence(hintsJson(rows)) });
  const items = block(text, 'Branch evidence').slice(2);
  // Each item is 75 columns on one line: "(lines)" wraps under a 4-space hanging indent.
  assert.deepEqual(items, [
    ...[8, 7, 6, 5, 4].flatMap((k) => [`  f${k}.c:${k} fn${k}: then-branch 0 of ${k}000 executions (0.00 %), unlikely()`, '    (lines)']),
    '  and 3 more (all in hints.json)',
  ]);
});

test('adversarial names and paths still wrap within 72 columns and lose no character', () => {
  const fn = `__do_sys_${'very_long_function_name_'.repeat(4)}end`; // 106 characters
  const file = `${'deeply/nested/directory/'.repeat(4)}file_with_a_long_name.c`; // 119 characters
  const hints = hintsJson([
    row({ file, line: 123456, fn, executions: 123456789, thenCount: 12, verdict: { kind: 'propose', hint: 'unlikely' } }),
    row({ file: 'a.c', line: 1, fn: 'tab\there', executions: 5000, thenCount: 5000, verdict: { kind: 'propose', hint: 'likely' } }),
  ]);
  const text = lkmlReport(abaComparison(), { ...CTX, evidence: evidence(hints, codegenJson(fn)) });
  for (const line of text.split('\n')) assert.ok(line.length <= 72, `${line.length}: ${line}`);
  const flat = text.replace(/\n */g, '');
  assert.ok(flat.includes(`${file}:123456`));
  assert.ok(flat.includes(`${fn}:`));
  assert.ok(flat.includes(`${fn}.cold`));
  // A tab would break the column count in a mail client: it becomes a space.
  assert.ok(text.includes('a.c:1 tab here: then-branch 5000 of 5000 executions'));
});

test('a hints document that proposes nothing says so, and a static one says there was no profile', () => {
  const quiet = hintsJson([hintRows()[2] as Record<string, unknown>]);
  const text = lkmlReport(abaComparison(), { ...CTX, evidence: evidence(quiet) });
  assert.deepEqual(block(text, 'Branch evidence'), [
    'Branch evidence (workload syscalls; a hint needs one way in >= 99 % of',
    '  >= 1000 executions): no proposal or fix among the 1 listed if.',
  ]);
  const stat = hintsJson(
    [row({ file: 'kernel/sys.c', line: 18, fn: '__do_sys_getpriority', executions: null, thenCount: null, confidence: 'heuristic', verdict: { kind: 'propose', hint: 'unlikely' } })],
    'static',
  );
  assert.deepEqual(block(lkmlReport(abaComparison(), { ...CTX, evidence: evidence(stat) }), 'Branch evidence'), [
    'Branch evidence: no profile, heuristic candidates (early error exits in',
    '  syscall implementations):',
    '  kernel/sys.c:18 __do_sys_getpriority: no profile, unlikely()',
    '    (heuristic)',
  ]);
});

test('several workloads: the lkml line counts them, the tables give each one\'s executions', () => {
  const hints = hintsJson([
    row({
      file: 'fs/select.c',
      line: 635,
      fn: 'core_sys_select',
      executions: 3000,
      thenCount: 1,
      verdict: { kind: 'propose', hint: 'unlikely' },
      evidence: [
        { workload: 'select', executions: 2000, thenCount: 1 },
        { workload: 'poll', executions: 1000, thenCount: 0 },
      ],
    }),
  ]);
  const ev = evidence(hints);
  // 1 / 3000 = 0.0333 % -> 0.03 %.
  assert.ok(lkmlReport(abaComparison(), { ...CTX, evidence: ev }).includes('    (0.03 %), unlikely() (lines, 2 workloads)\n'));
  assert.ok(markdownReport(abaComparison(), { ...CTX, evidence: ev }).includes('| fs/select.c:635 | core\\_sys\\_select | 3000 | 1 (0.03 %) | unlikely() | lines | select 2000, poll 1000 |'));
});

test('the text report shows the codegen matrix and the branch table', () => {
  const text = renderText(abaComparison(), evidence());
  const cells = (line: string): string[] => line.trim().split(/ {2,}/);
  const lines = text.split('\n');
  const matrix = lines.findIndex((l) => l.startsWith('Function '));
  assert.deepEqual(cells(lines[matrix]!), ['Function', 'gcc 12.2.0 -O2', 'gcc 12.2.0 -Os', 'clang-15 -O2']);
  assert.deepEqual(cells(lines[matrix + 1]!), ['__do_sys_mincore', 'layout', 'identical', 'not installed']);
  const sched = lines.find((l) => l.startsWith('kernel/sched/syscalls.c:712'));
  assert.deepEqual(cells(sched!), ['kernel/sched/syscalls.c:712', 'sched_getattr', '5000', '4990 (99.80 %)', 'unlikely() -> likely()', 'profiler', 'syscalls 5000']);
  assert.ok(!text.includes('do_mmap'), 'a contradicted annotation without a fix is not part of the patch');
  // Without the documents the text report is as before.
  assert.ok(!renderText(abaComparison()).includes('Code generation'));
});

test('the Markdown report has a codegen and a branch evidence section with tables', () => {
  const md = markdownReport(abaComparison(), { ...CTX, evidence: evidence() });
  const lines = md.split('\n');
  assert.ok(lines.includes('## Code generation'));
  assert.ok(lines.includes('| Function | gcc 12.2.0 -O2 | gcc 12.2.0 -Os | clang-15 -O2 |'));
  assert.ok(lines.includes('| \\_\\_do\\_sys\\_mincore | layout | identical | not installed |'));
  assert.ok(lines.includes("- -O3 is built with KCFLAGS=-O3 on top of the tree's -O2"));
  assert.ok(lines.includes('## Branch evidence'));
  assert.ok(lines.includes('| kernel/sched/syscalls.c:712 | sched\\_getattr | 5000 | 4990 (99.80 %) | unlikely() -\\> likely() | profiler | syscalls 5000 |'));
  assert.ok(lines.indexOf('## Branch evidence') < lines.indexOf('## Environment'));
});

test('the JSON report embeds both documents\' key fields under optional keys, the version set by the comparison alone', () => {
  const doc = JSON.parse(jsonReport(abaComparison(), { ...CTX, evidence: evidence() }));
  assert.equal(doc.version, 3);
  assert.equal(doc.codegen.source, 'codegen.json');
  assert.equal(doc.codegen.object, 'mm/mincore.o');
  assert.equal(
    doc.codegen.summary,
    'gcc 12.2 -O2: __do_sys_mincore reordered, 3 instructions moved out of line to __do_sys_mincore.cold, ' +
      'fall-through path 21 -> 18 instructions to return; -Os: identical. clang-15 -O2: not installed.',
  );
  const o2 = doc.codegen.cells[0];
  assert.equal(o2.identicalFunctions, 1);
  assert.deepEqual(o2.functions.map((f: { name: string }) => f.name), ['__do_sys_mincore']);
  assert.equal(o2.functions[0].diff, undefined, 'the asm diff stays in the codegen file');
  assert.deepEqual(o2.functions[0].coldInstructions, { before: 0, after: 3 });
  assert.equal(doc.hints.source, 'hints.json');
  assert.equal(doc.hints.otherRows, 2);
  assert.deepEqual(doc.hints.workloads, ['syscalls']);
  const [first, second] = doc.hints.rows;
  assert.equal(first.file, 'kernel/sched/syscalls.c');
  assert.equal(first.hint, 'unlikely() -> likely()');
  assert.equal(first.executions, 5000);
  assert.ok(Math.abs(first.thenPct - 99.8) < 1e-9);
  assert.equal(second.thenPct, 0);
  // Without the documents the keys are absent, not null.
  const bare = JSON.parse(jsonReport(abaComparison(), CTX));
  assert.equal('codegen' in bare, false);
  assert.equal('hints' in bare, false);
});

test('the HTML report has both sections with their tables, every value escaped', () => {
  const hints = hintsJson([row({ file: 'x<y>.c', line: 1, fn: 'f&g', executions: 5000, thenCount: 0, verdict: { kind: 'propose', hint: 'unlikely' } })]);
  const html = htmlReport(abaComparison(), { ...CTX, evidence: evidence(hints) });
  assert.match(html, /<section id="codegen"><h2>Code generation<\/h2><p>Code generation \(mm\/mincore\.o\): gcc 12\.2 -O2: __do_sys_mincore reordered/);
  assert.match(html, /<table id="table-codegen" data-table="codegen">/);
  assert.match(html, /<section id="branch-evidence">/);
  assert.ok(html.includes('<th scope="row">x&lt;y&gt;.c:1</th><td>f&amp;g</td>'));
  assert.ok(!html.includes('x<y>'));
});

test('the codegen command that wrote the document joins the reproduce commands, exactly as recorded', () => {
  const doc = JSON.parse(jsonReport(abaComparison(), { ...CTX, evidence: evidence() }));
  // Compilers and levels in cell order, each once; the tree's own config needs no --config.
  assert.equal(doc.reproduce.at(-1), 'hintlab codegen --src /src/linux-6.12 --patch mincore.patch --obj mm/mincore.o --cc gcc,clang-15 --opt O2,Os --json > codegen.json');
  const files = codegenJson();
  files.subject = { kind: 'files', before: 'a b.c', after: 'b.c', cflags: ['-DNDEBUG', '-fno-pic'] };
  const ev = evidence(hintsJson(hintRows()), files);
  assert.equal(
    JSON.parse(jsonReport(abaComparison(), { ...CTX, evidence: ev })).reproduce.at(-1),
    "hintlab codegen --before 'a b.c' --after b.c --cflags '-DNDEBUG -fno-pic' --cc gcc,clang-15 --opt O2,Os --json > codegen.json",
  );
  const lkml = lkmlReport(abaComparison(), { ...CTX, evidence: ev }).trimEnd().split('\n');
  // 46 columns, then --cflags and its value (30) would pass 72 with the " \\"; the second line stops before --json for the same reason.
  assert.deepEqual(lkml.slice(-3), [
    "  hintlab codegen --before 'a b.c' --after b.c \\",
    "      --cflags '-DNDEBUG -fno-pic' --cc gcc,clang-15 --opt O2,Os \\",
    '      --json > codegen.json',
  ]);
});

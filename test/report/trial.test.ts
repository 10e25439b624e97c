/**
 * The trial reports of a hand-built trial document (./trial-fixture.ts):
 * the lkml block's exact text (72 columns at most), the Markdown
 * report's sections and tables, the JSON document's schema, the HTML
 * page's self-containment, and the parts said when a step was reused, the
 * behaviour boots ran on the --debug-checks pair, or nothing reads the
 * patched files.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { trialHtml } from '../../src/report/trial-html.ts';
import { TRIAL_JSON_VERSION, trialJson } from '../../src/report/trial-json.ts';
import { trialMarkdown } from '../../src/report/trial-md.ts';
import { trialLkml, trialText } from '../../src/report/trial.ts';
import { READER, trialDocument } from './trial-fixture.ts';

const ctx = { generatedAt: '2026-12-02T00:00:00.000Z', reproduce: READER };

const LKML = `hintlab trial #3: Linux 6.12.117, A = the tree, B = A +
  sched-unlikely.patch.
Code (gcc 12.2 -O2): kernel/sched/build_policy.o (it #includes
  kernel/sched/syscalls.c): __x64_sys_sched_getscheduler reordered,
  2 instructions moved out of line to __x64_sys_sched_getscheduler.cold,
  fall-through path 14 -> 13 instructions to return.
behaviour: 45 steps identical on A (booted twice) and B (scenarios:
sched_param, slice)
not run: affinity-two-cpus (needs 2 CPUs)

Measured (qemu tcg -icount, instructions/call: a count, not a time), B
  vs A, 3 boots per side x 5 rounds x 20000 calls, boots A B B A A B:
subject                 A      B   change  95 % CI, %      verdict
getppid             217.1  217.1   0.00 %  -0.01 to +0.01  no difference
sched_getscheduler  193.1  191.1  -1.04 %  -1.05 to -1.02  fewer
Verdicts: Welch p < 0.05 (Holm, 2 subjects) on boot means and beyond
  +/-1 % by a one-sided test (Holm); smallest claimable change 1.0 %.

Kernels: Linux 6.12.117, tinyconfig + hintlab fragment + behave
  fragment, -O2, gcc 12.2; A built in 630 s (943 objects), B from A's
  objects in 38.2 s (4 objects).
Patch sched-unlikely.patch sha256:8c9266791bfbfb4d:
  kernel/sched/syscalls.c 2 hunks; 1 with an offset, no fuzz.
Host: Intel(R) Xeon(R) CPU @ 2.20GHz, host lab1

Reproduce (each part by hand: the md or text report):
  hintlab trial --src ../src/linux-6.12 --patch sched-unlikely.patch \\
      --profile getppid,sched_getscheduler --ops 20000
`;

test('the lkml report of a trial is exactly this text, no line over 72 columns, under 30 lines', () => {
  const text = trialLkml(trialDocument(), ctx);
  assert.equal(text, LKML);
  assert.deepEqual(text.split('\n').filter((l) => l.length > 72), []);
  // 28: the behaviour line names A's two boots
  assert.ok(text.trimEnd().split('\n').length <= 28);
  assert.ok([...Buffer.from(text, 'utf8')].every((b) => b < 0x80), 'plain ASCII for mail');
});

test('the Markdown report has each part as a section, the hunks and steps as tables', () => {
  const md = trialMarkdown(trialDocument(), ctx);
  assert.deepEqual(md.split('\n').filter((l) => l.startsWith('#')), [
    '# hintlab trial \\#3',
    '## What changed in the code',
    '## Behaviour',
    '## Measured',
    '## How the kernels were built',
    '## Steps',
    '## Environment',
    '## Reproduce',
  ]);
  assert.ok(md.includes('| sched-unlikely.patch | kernel/sched/syscalls.c | 1 | 1046 | 0 | 0 |\n| sched-unlikely.patch | kernel/sched/syscalls.c | 2 | 1080 | 3 | 0 |'));
  assert.ok(md.includes('| A/B in VMs (qemu -icount, instructions; 3 boots per kernel) | reused | 0.3 | 171.2 | reused: 6 boots (A B B A A B) |'));
  // A t interval over 3 boots (2 + 2 Welch df) is wider than the percentile bootstrap of schema 5, which undercovered at 3 units.
  assert.ok(md.includes('| sched\\_getscheduler | 193.1 | 191.1 | -2.0 | -1.04 | -1.05 to -1.02 |'));
  assert.ok(md.includes('```sh\nhintlab trial --src ../src/linux-6.12 --patch sched-unlikely.patch --profile getppid,sched_getscheduler --ops 20000\nhintlab kernel build --src ~/src/linux-6.12 --behave --opt O2 --out ~/.cache/hintlab/trial/linux-6.12-0123456789ab/A --label A\n'));
});

test('the JSON report is the versioned trial document, the comparison\'s fields named after the unit, each command also as a line', () => {
  const doc = JSON.parse(trialJson(trialDocument(), ctx)) as Record<string, unknown> & {
    measured: { comparison: { subjects: { change: Record<string, unknown> }[] } };
    reproduce: { part: string; argv: string[]; line: string }[];
    steps: { name: string; state: string; seconds: number }[];
  };
  assert.deepEqual([doc.format, doc.schema, doc.version, doc.trialId, doc.generatedAt, doc.unitFieldSuffix], ['hintlab-trial', 1, TRIAL_JSON_VERSION, 3, '2026-12-02T00:00:00.000Z', 'InstructionsPerCall']);
  const change = doc.measured.comparison.subjects[1]!.change;
  assert.ok('changeInstructionsPerCall' in change && !('changeInUnit' in change));
  assert.deepEqual(doc.reproduce.at(-1), { part: 'compare', argv: ['compare', 'trial3-A', 'trial3-B'], line: 'hintlab compare trial3-A trial3-B' });
  assert.deepEqual(doc.steps.map((s) => [s.name, s.state, s.seconds]), [['build-A', 'done', 629.8], ['build-B', 'done', 38.2], ['codegen', 'done', 1.4], ['behave', 'done', 49.6], ['vm', 'reused', 0.3]]);
  assert.deepEqual(Object.keys(doc).sort(), ['behave', 'codegen', 'cwd', 'db', 'format', 'generatedAt', 'hintlabVersion', 'kernels', 'measured', 'out', 'patches', 'reproduce', 'schema', 'source', 'steps', 'trialId', 'unitFieldSuffix', 'version']);
});

test('the HTML report is one page that fetches nothing, with every part', () => {
  const html = trialHtml(trialDocument(), ctx);
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">/);
  assert.doesNotMatch(html, /(src|href)="https?:/);
  for (const id of ['code', 'behaviour', 'measured', 'summary', 'change', 'tables', 'kernels', 'steps', 'environment', 'reproduce']) assert.match(html, new RegExp(`<section id="${id}">`));
  assert.ok(html.includes('<span class="badge faster">fewer instructions</span>sched_getscheduler: 193.1 -&gt; 191.1 instructions/call'));
});

test('the text report has the function table and the comparison\'s own table', () => {
  const text = trialText(trialDocument(), ctx);
  assert.ok(text.includes('kernel/sched/build_policy.o:\n  Function                      gcc 12.2.0 -O2\n  __x64_sys_sched_getscheduler  layout\n'));
  assert.match(text, /\nsched_getscheduler +193\.1 instr ± 0\.01 % +191\.1 instr ± 0\.01 % +-2\.0 instr \(-1\.04 %\)/);
});

test('a reused build, the --debug-checks pair and a patch that no object reads are each said in words', () => {
  const doc = trialDocument();
  doc.kernels.A.state = 'reused';
  doc.kernels.debug = { A: { ...doc.kernels.A, role: 'A-debug', manifest: { ...doc.kernels.A.manifest, fragments: ['behave', 'debug-checks'] } }, B: { ...doc.kernels.B, role: 'B-debug' } };
  doc.behave.kernels = 'debug-checks';
  doc.codegen.objects = [];
  doc.codegen.files = ['Documentation/scheduler/sched-eevdf.rst'];
  delete doc.patches[0]!.applied;
  const text = trialLkml(doc, ctx);
  assert.match(text, /A built in 630 s \(943 objects\), reused, B from A's objects\n {2}in 38\.2 s \(4 objects\)\./);
  assert.match(text, /behaviour on the --debug-checks pair, never\n {2}measured;/);
  assert.match(text, /\nBehaviour, on the --debug-checks pair \(A-debug, B-debug\):\nbehaviour: 45 steps/);
  assert.match(text, /\nCode \(gcc 12\.2 -O2\): no object of the build reads\n {2}Documentation\/scheduler\/sched-eevdf\.rst\.\n/);
  const full = trialText(doc, ctx);
  assert.match(full, /kernel\/sched\/syscalls\.c \(where its hunks applied was not recorded: B was built before hintlab recorded it\)\./);
});

test('a behaviour step A did not repeat is said in every trial format, with both A values, and raises no banner', () => {
  const doc = trialDocument();
  const b = doc.behave.document;
  b.identical = false;
  b.notJudged = [{
    kind: 'step', scenario: 'slice', step: 9, line: 167, call: 'base_slice ns=2000000',
    a: { ret: '0', errno: '0', out: '-' }, aAgain: { ret: '0', errno: '0', out: '-' },
    differences: [{ field: 'self.debug', a: 'state:R,custom:0,slice:2.000000', b: 'state:R,custom:0,slice:0.700000' }],
  }];
  const said = '0 divergences in 45 steps between A (booted twice) and B (scenarios: sched_param, slice); 1 step could not be judged (A varied): slice step 9';
  const flat = (text: string) => text.replace(/\s+/g, ' ');
  for (const [format, text] of [['text', trialText(doc, ctx)], ['md', trialMarkdown(doc, ctx)], ['html', trialHtml(doc, ctx)], ['lkml', trialLkml(doc, ctx)]] as const) {
    assert.ok(flat(text).includes(said), `${format}: ${text}`);
    assert.ok(flat(text).includes('2.000000') && flat(text).includes('0.700000'), `${format} names both A values`);
  }
  assert.ok(!trialHtml(doc, ctx).includes('behaviour-banner'), 'nothing diverged: no banner');
  assert.ok(trialText(doc, ctx).includes('\nnot judged: scenario slice, step 9 (built-in:167): base_slice ns=2000000\n'));
  const json = JSON.parse(trialJson(doc, ctx)) as { behave: { document: { notJudged: unknown[] } } };
  assert.equal(json.behave.document.notJudged.length, 1);
});

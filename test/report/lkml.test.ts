import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Comparison } from '../../src/compare/types.ts';
import { lkmlReport } from '../../src/report/lkml.ts';
import { subjectSentence } from '../../src/report/summary.ts';
import { abaComparison, CTX } from './fixtures.ts';

function widest(text: string): number {
  return Math.max(...text.split('\n').map((l) => l.length));
}

test('the subject sentence gives before, after, the change the verdict used with CI, round CV, rounds and verdict', () => {
  const c = abaComparison();
  const [sched, getppid, read] = c.subjects;
  // A/B/A: the verdict used B vs A+A2, so the sentence does. sched_getattr's A+A2 midpoint is
  // (182.4 + 182.6) / 2 = 182.5: 182.5 -> 170.6 is -11.9 ns, 100 * (170.6 / 182.5 - 1) = -6.52 %.
  assert.equal(
    subjectSentence(c, sched!),
    'sched_getattr: 182.5 -> 170.6 ns/call, -11.9 ns (-6.5 %, B vs A+A2, 95 % CI -6.9 to -6.1 %), round CV A/B/A2 0.3/0.4/0.3 %, 3 processes x 5 rounds x 20000 calls: faster.',
  );
  // (45.20 + 45.25) / 2 = 45.225 -> 46.10: +0.875 ns, +1.935 %.
  assert.equal(
    subjectSentence(c, getppid!),
    'getppid: 45.23 -> 46.10 ns/call, +0.88 ns (+1.9 %, B vs A+A2, 95 % CI +1.5 to +2.5 %), round CV 0.5 %, 3 processes x 5 rounds x 20000 calls: slower.',
  );
  // (301.0 + 300.8) / 2 = 300.9 -> 301.5: +0.6 ns, +0.199 %: below 1 %, so two decimals.
  assert.equal(
    subjectSentence(c, read!),
    'read: 300.9 -> 301.5 ns/call, +0.6 ns (+0.20 %, B vs A+A2, 95 % CI -0.45 to +0.78 %), round CV A/B/A2 0.9/1.1/1.0 %, 3 processes x 5 rounds x 20000 calls: no difference proven (detectable: 0.8 %).',
  );
});

test('the lkml block lists the regression first, then facts and the commands that reproduce it', () => {
  const text = lkmlReport(abaComparison(), CTX);
  const lines = text.split('\n');
  assert.ok(lines.includes('Slower (regressions): getppid.'));
  assert.ok(lines.includes('getppid: 45.23 -> 46.10 ns/call, +0.88 ns (+1.9 %, B vs A+A2, 95 % CI'));
  assert.ok(lines.indexOf('getppid: 45.23 -> 46.10 ns/call, +0.88 ns (+1.9 %, B vs A+A2, 95 % CI') < lines.findIndex((l) => l.startsWith('sched_getattr:')));
  assert.ok(lines.includes('Kernels: A 6.12.9-amd64, B 6.12.9-hintlab+, A2 6.12.9-amd64'));
  assert.ok(lines.includes('Machine: Intel(R) Xeon(R) CPU @ 2.20GHz, host lab-7'));
  assert.ok(lines.includes('Probe: gcc (Debian 12.2.0-14) 12.2.0 -O2'));
  assert.ok(lines.includes('Tuning: turbo off, governor performance, SMT off, pinned CPU 1,'));
  assert.ok(lines.includes('Baseline drift (A2 vs A): sched_getattr +0.11 % (95 % CI -0.20 to'));
  const repro = lines.slice(lines.indexOf('Reproduce:') + 1, -1);
  assert.deepEqual(repro, [
    '  hintlab bench --cpu 1 --rounds 15 --label stock',
    '  hintlab bench --cpu 1 --rounds 15 --label patched',
    '  hintlab bench --cpu 1 --rounds 15 --label stock-again',
    '  hintlab compare stock patched stock-again --threshold 1 --alpha 0.05 \\',
    '      --correction holm',
  ]);
  assert.ok(widest(text) <= 72);
  // Short: maintainers complain about walls of text. Seven lines more than the
  // first version's bound of 30: the two-line verdict rule, the wrapped --correction,
  // the units of replication each sentence names ("3 processes x 5 rounds") and how
  // they were weighed (two lines). One more for the design every report names (issue 25).
  assert.ok(lines.length <= 38, `${lines.length} lines`);
});

test('a baseline that really moved and the runs\' noise warnings are stated', () => {
  const c = abaComparison();
  const drift = c.subjects[0]!.drift;
  if (drift.kind !== 'measured') throw new Error('fixture has A2');
  drift.driftVerdict = { verdict: 'slower', reason: 'A2 is slower than A.', caveats: [] };
  for (const r of c.runs) (r.environment as { warnings: unknown[] }).warnings = [{ kind: 'load', message: 'load average 5.2' }];
  (c.runs[1]!.environment as { warnings: unknown[] }).warnings.push({ kind: 'turbo-on', message: 'turbo on' });
  const text = lkmlReport(c, CTX).replace(/\n\s*/g, ' ');
  assert.match(text, /sched_getattr \+0\.11 % \(95 % CI -0\.20 to \+0\.40 %, baseline moved\); getppid \+0\.11 % \(95 % CI -0\.30 to \+0\.50 %\);/);
  assert.match(text, /Warnings: load \(A, B, A2\), turbo-on \(B\)/);
});

test('an A/B comparison has no drift paragraph', () => {
  const text = lkmlReport(abaComparison({ withA2: false }), CTX);
  assert.ok(text.startsWith('hintlab A/B comparison: A = run 12 "stock", B = run 13 "patched".\n'));
  assert.doesNotMatch(text, /drift/i);
});

test('instruction-counted runs never speak of nanoseconds', () => {
  const text = lkmlReport(abaComparison({ unit: 'instructions/call' }), CTX);
  assert.match(text.replace(/\n\s*/g, ' '), /sched_getattr: 182\.5 -> 170\.6 instructions\/call, -11\.9 instructions/);
  assert.doesNotMatch(text, /\bns\b|nanosec/);
  assert.match(text, /a count, not a time/);
});

test('VM runs name each guest kernel by label and the qemu mode', () => {
  const c = abaComparison({ unit: 'instructions/call' });
  const labels = ['stock', 'patched', 'stock'];
  c.runs.forEach((r, i) => {
    const cpu = { ...(r.environment.cpu as object), model: { known: true, value: 'Intel(R) Xeon(R) CPU @ 2.20GHz (host; guest under qemu tcg with icount)' } };
    r.environment = { ...r.environment, cpu, pinnedCpu: 0, virtualization: { known: true, value: 'qemu tcg (guest)' }, warnings: [] };
    (r.environment as Record<string, unknown>).vm = { kernelLabel: labels[i], kernelPath: '/k', bootIndex: i, accel: 'tcg', icount: true, guestCpus: 1 };
  });
  const text = lkmlReport(c, CTX).replace(/\n\s*/g, ' ');
  // The CPU model and the tuning are the host's (the machine running qemu); the kernels and the pinned CPU the guests'.
  assert.match(text, /Host: Intel\(R\) Xeon\(R\) CPU @ 2\.20GHz, host lab-7 Guest kernels: A/);
  assert.match(text, /Guest kernels: A 6\.12\.9-amd64 \(VM kernel "stock"\), B 6\.12\.9-hintlab\+ \(VM kernel "patched"\), A2 6\.12\.9-amd64 \(VM kernel "stock"\)/);
  assert.match(text, /Tuning: host turbo off, governor performance, SMT off; guest pinned CPU 0, 1 CPU, under qemu tcg -icount Reproduce:/);
  assert.doesNotMatch(text, /Machine:/);
});

test('stress-ng throughput speaks of bogo-ops/s and rounds', () => {
  const text = lkmlReport(abaComparison({ unit: 'bogo-ops/s' }), CTX);
  assert.match(text.replace(/\n\s*/g, ' '), /sched_getattr: 182\.5 -> 170\.6 bogo-ops\/s, -11\.9 bogo-ops\/s \(-6\.5 %, B vs A\+A2, 95 % CI -6\.9 to -6\.1 %\), round CV A\/B\/A2 0\.3\/0\.4\/0\.3 %, 15 invocations: faster\./);
  assert.doesNotMatch(text, /\bns\b/);
});

/** Every string a user or a machine can make arbitrarily long, made long. */
function adversarial(): Comparison {
  const c = abaComparison();
  const long = 'k'.repeat(120);
  for (const r of c.runs) {
    r.label = `label-${r.role}-${'l'.repeat(90)}`;
    r.command = `hintlab vm run --kernel /home/someone/src/linux/${long}/arch/x86/boot/bzImage --label 'a label with spaces ${'q'.repeat(80)}' --profile sched_getattr`;
    const env = r.environment as { kernel: { release: unknown }; cpu: { model: unknown } };
    env.kernel.release = { known: true, value: `6.12.0-rc7-next-20241122-${long}` };
    env.cpu.model = { known: true, value: `AMD EPYC 9654 96-Core Processor ${'m'.repeat(70)}` };
  }
  c.subjects[0]!.subject = `sched_getattr_with_a_${'s'.repeat(80)}`;
  c.regressions = [c.subjects[1]!.subject, `x${'r'.repeat(100)}`];
  c.notCompared = [{ subject: `n${'n'.repeat(100)}`, presentIn: ['A'] }];
  c.mismatchesAllowed = [{ field: 'cpu.model', values: { A: 'm'.repeat(100), B: 'other' }, kind: 'checked', same: false }];
  return c;
}

test('the lkml block never exceeds 72 columns, whatever the names, kernels and commands', () => {
  const text = lkmlReport(adversarial(), CTX);
  for (const line of text.split('\n')) assert.ok(line.length <= 72, `${line.length} columns: ${line}`);
  assert.match(text, /Mismatch allowed: cpu\.model: A\s+m+/);
  assert.doesNotMatch(text, /\t/);
});

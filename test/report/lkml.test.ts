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
    'sched_getattr: 182.5 -> 170.6 ns/call, -11.9 ns (-6.5 %, B vs A+A2, 95 % CI -6.9 to -6.1 %), round CV A/B/A2 0.3/0.4/0.3 %, 3 processes per run x 5 rounds x 20000 calls: faster.',
  );
  // (45.20 + 45.25) / 2 = 45.225 -> 46.10: +0.875 ns, +1.935 %.
  assert.equal(
    subjectSentence(c, getppid!),
    'getppid: 45.23 -> 46.10 ns/call, +0.88 ns (+1.9 %, B vs A+A2, 95 % CI +1.5 to +2.5 %), round CV 0.5 %, 3 processes per run x 5 rounds x 20000 calls: slower.',
  );
  // (301.0 + 300.8) / 2 = 300.9 -> 301.5: +0.6 ns, +0.199 %: below 1 %, so two decimals.
  assert.equal(
    subjectSentence(c, read!),
    'read: 300.9 -> 301.5 ns/call, +0.6 ns (+0.20 %, B vs A+A2, 95 % CI -0.45 to +0.78 %), round CV A/B/A2 0.9/1.1/1.0 %, 3 processes per run x 5 rounds x 20000 calls: no difference proven (detectable: 0.8 %).',
  );
});

test('the lkml block is one aligned table, regressions first, then facts and the commands that reproduce it', () => {
  const text = lkmlReport(abaComparison(), CTX);
  const lines = text.split('\n');
  const head = lines.indexOf('subject            A      B   change  95 % CI, %      verdict');
  assert.ok(head > 0, text);
  // B against the midpoint of A and A2, the contrast the verdict used (the fixture's vsPooled): getppid 45.23 -> 46.10 +1.9 % slower (the regression, first), sched_getattr -6.5 %, read 300.9 -> 301.5 +0.20 %.
  assert.deepEqual(lines.slice(head + 1, head + 4), [
    'getppid        45.23  46.10   +1.9 %  +1.5 to +2.5    slower',
    'sched_getattr  182.5  170.6   -6.5 %  -6.9 to -6.1    faster',
    'read           300.9  301.5  +0.20 %  -0.45 to +0.78  no difference',
  ]);
  assert.deepEqual(lines.slice(head - 2, head), ['Means in ns/call (wall clock), B vs A+A2, 3 processes per run x 5 rounds', '  x 20000 calls:']);
  assert.ok(lines.includes('Machine: Intel(R) Xeon(R) CPU @ 2.20GHz, host lab-7'));
  assert.ok(lines.includes('Probe: gcc (Debian 12.2.0-14) 12.2.0 -O2'));
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
  // 30 for the block itself, the design line every report names (two lines wrapped, an A/B/A's), and the caption's clock.
  assert.ok(lines.length <= 33, `${lines.length} lines`);
});

/** The fixture with `extra` more unproven subjects, copies of read with the given % changes. */
function withUnproven(changes: number[]): Comparison {
  const c = abaComparison();
  const read = c.subjects[2]!;
  changes.forEach((pct, i) => c.subjects.push({ ...read, subject: `read${i + 2}`, change: { ...read.change, changePct: pct } }));
  return c;
}

test('subjects with no proven change fold into one line naming the largest change, unless every row is asked for', () => {
  const c = withUnproven([0.03, -0.12]);
  const text = lkmlReport(c, CTX);
  // read against A+A2 (the judged contrast): 100 * (301.5 / 300.9 - 1) = +0.20 %, larger than |+0.03| and |-0.12|.
  assert.match(text, /\n3 others: no difference proven beyond \+\/-1 %, largest \|change\| 0\.20 %\n {2}\(read; --all lists them\)\.\n/);
  assert.doesNotMatch(text, /^read/m);
  assert.match(text, /^getppid .* slower$/m);
  const all = lkmlReport(c, { ...CTX, all: true });
  assert.deepEqual(all.split('\n').filter((l) => /^read\d? /.test(l)).map((l) => l.split(/ +/)[0]), ['read', 'read2', 'read3']);
  assert.doesNotMatch(all, /others:/);
});

test('a caveat marks its verdict and is said once under the table', () => {
  const c = structuredClone(abaComparison());
  c.subjects[0]!.verdict = { ...c.subjects[0]!.verdict, caveats: ['drift-as-large-as-change'] };
  const text = lkmlReport(c, CTX);
  assert.match(text, /^sched_getattr .* faster\*$/m);
  assert.match(text, /^\* the A\/B\/A drift is as large as the change$/m);
});

test('the measurement design is one line under the title when the comparison names it', () => {
  // A document of schema 5 or older has no design: nothing is printed for it.
  const c = abaComparison() as Omit<Comparison, 'design'> & { design?: Comparison['design'] };
  delete c.design;
  assert.doesNotMatch(lkmlReport(c as Comparison, CTX), /Design:/);
  c.design = { kind: 'processes', text: 'interleaved A/B, 15 processes per side, alternated', processesPerSide: null, cpus: null };
  const lines = lkmlReport(c as Comparison, CTX).split('\n');
  assert.equal(lines[2], 'Design: interleaved A/B, 15 processes per side, alternated');
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
  assert.match(text.replace(/\n\s*/g, ' '), /Means in instructions\/call \(wall clock\), B vs A\+A2, .* Instruction counts \(qemu -icount\) ignore cycles, caches and stalls/);
  assert.doesNotMatch(text, /\bns\b|nanosec/);
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
  assert.match(text.replace(/\n\s*/g, ' '), /Means in bogo-ops\/s \(stress-ng throughput: higher is better; wall clock\), B vs A\+A2, 15 invocations per run: /);
  assert.match(text, /on invocation means/);
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

test('subjects with different calls per round give the caption their range, not the first one\'s', () => {
  const c = structuredClone(abaComparison());
  c.subjects[2]!.runs = c.subjects[2]!.runs.map((r) => ({ ...r, opsPerRound: r.opsPerRound.map(() => 500) }));
  assert.match(lkmlReport(c, CTX).replace(/\n\s*/g, ' '), /Means in ns\/call \(wall clock\), B vs A\+A2, 3 processes per run x 5 rounds x 500-20000 calls:/);
});

/** Every byte past ASCII in `text`, with the line it is on. */
function nonAscii(text: string): string[] {
  return text.split('\n').filter((line) => [...Buffer.from(line, 'utf8')].some((b) => b >= 0x80));
}

test('the lkml block is plain ASCII, +/- for the noise threshold, whatever labels and hosts the runs carry', () => {
  const c = abaComparison();
  c.runs[1]!.label = 'patched\u2013v2 \u00b5-opt';
  (c.runs[0]!.environment as { hostname: unknown }).hostname = { known: true, value: 'l\u00e4b-7' };
  c.subjects[2]!.change = { ...c.subjects[2]!.change, changePct: 0 };
  for (const text of [lkmlReport(c, CTX), lkmlReport(c, { ...CTX, all: true }), lkmlReport(adversarial(), CTX)]) {
    assert.deepEqual(nonAscii(text), []);
    assert.doesNotMatch(text, /\u00b1/);
  }
  const text = lkmlReport(c, CTX).replace(/\n\s*/g, ' ');
  assert.match(text, /beyond \+\/-1 %/);
  assert.match(text, /run 13 "patched-v2 u-opt"/);
  for (const line of lkmlReport(c, CTX).split('\n')) assert.ok(line.length <= 72, line);
});

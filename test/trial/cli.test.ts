/**
 * `hintlab trial` through the CLI with its parts scripted through
 * io.services (./fakes.ts): the step lines on stderr as each step starts
 * and ends with its wall time, the report on stdout in each format, a
 * rerun that says what it reused, and refused flags.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Services } from '../../src/cli/io.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { requireAll, requireTool } from '../helpers/tools.ts';
import { miniBuild, miniPatch, miniTree, scriptedGuest, unusedProbe } from './fakes.ts';
import { TRIAL_COST_SCHEMA } from '../../src/trial/cost.ts';

const skip = requireAll(requireTool('patch', 'patch'), requireTool('objdump', 'binutils'));
const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));
const probe = unusedProbe(dir);
const src = miniTree(dir);
const patch = miniPatch(src, dir, 'hint.patch', 'kernel/sys_impl.c', '\tif (!param || pid < 0)', '\tif (__builtin_expect(!param || pid < 0, 1))');
const scenario = join(dir, 'tiny.scn');
writeFileSync(scenario, 'scenario tiny\nsetpriority pid=self nice=3\n');

const services = (): Services => ({ trial: { services: { buildKernel: miniBuild() }, launcher: scriptedGuest(), probe, cacheDir: dir } });
const argv = (out: string, extra: string[] = []) => ['trial', '--src', src, '--patch', patch, '--out', join(dir, out), '--db', join(dir, `${out}.db`), '--scenario', scenario, '--profile', 'getppid', '--ops', '1000', '--no-cost', ...extra];

test('each step is printed as it starts and as it ends with its wall time; the lkml report goes to stdout within 72 columns', { skip }, async () => {
  const r = await runCli(argv('cli'), { services: services() });
  assert.equal(r.code, 0, r.stderr);
  const steps = r.stderr.split('\n').filter((l) => l.startsWith('['));
  assert.deepEqual(
    steps.map((l) => l.replace(/ \d+\.\d s/, ' N s').replace(/:.*$/, '')),
    ['[1/5] build A (the tree as is) ...', '[1/5] build A N s', '[2/5] build B (A + 1 patch, from A\'s objects) ...', '[2/5] build B N s', '[3/5] codegen of the objects the patch touches ...', '[3/5] codegen N s', '[4/5] behave A vs B ...', '[4/5] behave N s', '[5/5] A/B in VMs (qemu -icount, instructions; 3 boots per kernel) ...', '[5/5] vm N s'],
  );
  assert.match(r.stderr, /\[3\/5\] codegen \d+\.\d s: 1 object compared \(kernel\/sys\.o\)\n/);
  assert.match(r.stderr, /\[5\/5\] vm \d+\.\d s: 6 boots \(A B B A A B\), qemu -icount: instructions per call; runs trial1-A, trial1-B\n/);
  const lines = r.stdout.trimEnd().split('\n');
  assert.ok(lines.every((l) => l.length <= 72), lines.filter((l) => l.length > 72).join('\n'));
  assert.match(r.stdout, /^hintlab trial #1: Linux 6\.12\.99, A = the tree, B = A \+ hint\.patch\.\n/);
  assert.match(r.stdout, /\nBehaviour: 1 step identical on A \(booted twice\) and B \(scenarios: tiny\)\n/i);
});

test('a rerun reuses every step and says so on each step line; --format json and -o FILE write the document', { skip }, async () => {
  const first = await runCli(argv('again'), { services: services() });
  assert.equal(first.code, 0, first.stderr);
  const out = join(dir, 'trial.json');
  const r = await runCli(argv('again', ['--format', 'json', '-o', out]), { services: services() });
  assert.equal(r.code, 0, r.stderr);
  const ends = r.stderr.split('\n').filter((l) => /^\[\d\/5\] [^.]* \d+\.\d s: /.test(l));
  assert.equal(ends.length, 5);
  assert.ok(ends.every((l) => /^\[\d\/5\] [\w ]+ \d+\.\d s: reused: /.test(l)), ends.join('\n'));
  assert.match(r.stderr, /wrote the json report of trial #2 to .*trial\.json\n$/);
  const doc = JSON.parse(readFileSync(out, 'utf8')) as { format: string; schema: number; version: number; trialId: number; steps: { state: string }[] };
  assert.deepEqual([doc.format, doc.schema, doc.version, doc.trialId, doc.steps.map((s) => s.state)], ['hintlab-trial', 1, 1, 2, ['reused', 'reused', 'reused', 'reused', 'reused']]);
});

test('--threshold judges the measured runs again without redoing a step, and the compare command to reproduce carries it', { skip }, async () => {
  const first = await runCli(argv('threshold'), { services: services() });
  assert.equal(first.code, 0, first.stderr);
  const r = await runCli(argv('threshold', ['--threshold', '0.1%', '--format', 'json']), { services: services() });
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout) as { steps: { state: string }[]; measured: { comparison: { options: { thresholdPct: number } } }; reproduce: { part: string; argv: string[] }[] };
  assert.deepEqual(doc.steps.map((s) => s.state), ['reused', 'reused', 'reused', 'reused', 'reused']);
  assert.equal(doc.measured.comparison.options.thresholdPct, 0.1);
  assert.deepEqual(doc.reproduce.find((c) => c.part === 'compare')?.argv.slice(3, 5), ['--threshold', '0.1']);
  const bad = await runCli(argv('threshold', ['--threshold', 'lots']));
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--threshold/);
});

test('an --out inside the tree and a --src that is no kernel tree are refused before anything is written', async () => {
  const inside = await runCli(['trial', '--src', src, '--patch', patch, '--out', join(src, 'trial'), '--db', join(dir, 'in.db'), '--scenario', scenario], { services: services() });
  assert.deepEqual([inside.code, inside.stderr], [2, `hintlab: --out ${join(src, 'trial')} is inside --src ${src}; put the trial's builds outside the kernel tree (it is copied whole)\n`]);
  assert.equal(existsSync(join(src, 'trial')), false);
  const notTree = await runCli(['trial', '--src', dir, '--patch', patch, '--out', join(dir, 'nt'), '--db', join(dir, 'nt.db'), '--scenario', scenario], { services: services() });
  assert.deepEqual([notTree.code, notTree.stderr], [2, `hintlab: --src ${dir}: no Makefile; point --src at the top of a Linux source tree\n`]);
});

test('flags are checked before anything is built: no patch, a wrong format, a profile an icount guest cannot run', async () => {
  const noPatch = await runCli(['trial', '--src', src, '--db', join(dir, 'x.db')], { services: services() });
  assert.deepEqual([noPatch.code, noPatch.stderr], [2, 'hintlab: give what B is: --patch FILE (a diff or an mbox series; repeatable, applied in order), or --range BASE..HEAD of the git tree --src\n']);
  const format = await runCli([...argv('flags'), '--format', 'pdf'], { services: services() });
  assert.equal(format.code, 2);
  assert.match(format.stderr, /--format must be one of lkml, md, html, json, text; got 'pdf'/);
  const twoCpus = await runCli([...argv('flags2'), '--profile', 'sched_setaffinity-queued'], { services: services() });
  assert.equal(twoCpus.code, 2);
  assert.match(twoCpus.stderr, /--icount guests have one CPU .* profile sched_setaffinity-queued cannot run/);
});

test('without --cost or --no-cost the patch decides: a code change runs without the cost model; --kvm alone is not taken for --cost', { skip }, async () => {
  const code = miniPatch(src, dir, 'code.patch', 'kernel/sys_impl.c', '\t*param = lookup(pid);', '\t*param = lookup(pid) + 1;');
  const plain = (out: string, p: string, extra: string[] = []) => ['trial', '--src', src, '--patch', p, '--out', join(dir, out), '--db', join(dir, `${out}.db`), '--scenario', scenario, '--profile', 'getppid', '--ops', '1000', ...extra];
  const r = await runCli(plain('decides', code), { services: services() });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr + r.stdout, /cost model|cost counters/);
  const kvm = await runCli(plain('kvm-alone', patch, ['--kvm']), { services: services() });
  assert.doesNotMatch(kvm.stderr, /choose one/);
});

test('--repeat below 3 is refused before anything is built: it could give no verdict', async () => {
  const r = await runCli(argv('two-boots', ['--repeat', '2']), { services: services() });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--repeat 2: a verdict needs at least 3 boots per kernel/);
  assert.ok(!existsSync(join(dir, 'two-boots')), 'nothing was written');
});

test('--format json with the cost model prints one JSON document on stdout, its cost section holding what the exact rule claims', { skip }, async () => {
  const costPlugin = { path: join(dir, 'cost.so'), buildId: 'cost-test', qemuVersion: '7.2.22' };
  // B (the patch's __builtin_expect) takes one branch fewer per call in every boot
  const launcher = scriptedGuest({ taken: (image) => (image.includes('__builtin_expect') ? 50 : 51) });
  const withCost = (): Services => ({ trial: { services: { buildKernel: miniBuild() }, launcher, probe, cacheDir: dir, costPlugin } });
  // the patch only changes a hint: no --cost, the cost model is on by default
  const args = argv('cost-json').filter((a) => a !== '--no-cost');
  const r = await runCli([...args, '--format', 'json'], { services: withCost() });
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout) as { cost: { schema: number; model: string; counters: { known: boolean; value: { metrics: { metric: string; subjects: { subject: string; verdict: string; exact: boolean; change: number }[] }[] } } } };
  assert.equal(doc.cost.schema, TRIAL_COST_SCHEMA);
  assert.equal(doc.cost.model, 'l1i=32k,8way,64 predictor=2bit');
  const taken = doc.cost.counters.value.metrics.find((m) => m.metric === 'taken-branches/call')!.subjects[0]!;
  assert.deepEqual([taken.subject, taken.verdict, taken.exact, taken.change], ['getppid', 'fewer taken branches', true, -1]);
  // every reporter reads the section: lkml names the exact change per subject, within 72 columns
  const lkml = await runCli(args, { services: withCost() });
  assert.equal(lkml.code, 0, lkml.stderr);
  assert.match(lkml.stdout, /\nCost model \(l1i=32k,8way,64 predictor=2bit; counts of the emulated\n/);
  assert.match(lkml.stdout, /\n {2}getppid: taken branches -1\.00\/call \(exact, 3 boots alike\)\.\n/);
  assert.ok(lkml.stdout.split('\n').every((l) => l.length <= 72));
  const text = await runCli([...args, '--format', 'text'], { services: withCost() });
  assert.match(text.stdout, /\nKernel A: no per-function counts \(no System\.map next to /);
  assert.equal((text.stdout.match(/Cost model l1i=32k,8way,64 predictor=2bit in every measured boot/g) ?? []).length, 1);
  assert.match(text.stdout, /\nExact changes, B vs A \(events per call\):\n {2}getppid: taken branches -1\.00\/call \(exact, 3 boots alike\)\n/);
  const md = await runCli([...args, '--format', 'md'], { services: withCost() });
  assert.match(md.stdout, /\n## Cost model\n\nCost model l1i=32k,8way,64 predictor=2bit in every measured boot/);
  assert.match(md.stdout, /\| getppid \| 51\.00 taken branches\/call \| 50\.00 \| -1\.00 \(-1\.96 %\) \| exact \| fewer taken branches \|/);
  const html = await runCli([...args, '--format', 'html'], { services: withCost() });
  assert.match(html.stdout, /<section id="cost"><h2>Cost model<\/h2>/);
});

test('every mode conflict is refused from the flags alone, before anything is built', async () => {
  const built: string[] = [];
  const watched = (): Services => ({ trial: { services: { buildKernel: miniBuild(built) }, launcher: scriptedGuest(), probe, cacheDir: dir } });
  const lava = 'lava://127.0.0.1:9/qemu';
  const cases: [string[], RegExp][] = [
    [['--cost', '--target', lava], /--cost needs hintlab's qemu plugin on this machine; the measured boots of --target run on a LAVA lab: drop --cost or --target/],
    [['--cost-model', 'l1i=16k,8way,64', '--target', lava], /--cost-model needs hintlab's qemu plugin on this machine/],
    [['--cost', '--kvm'], /--cost counts in qemu's emulator \(TCG plugin\), --kvm measures time: choose one/],
    [['--cost-model', 'l1i=16k,8way,64', '--kvm'], /--cost-model counts in qemu's emulator/],
    [['--cost', '--no-cost'], /--cost and --no-cost: give one/],
    [['--no-cost', '--cost-model', 'l1i=16k,8way,64'], /--cost-model sets the model of --cost; drop --no-cost/],
    [['--kvm', '--target', lava], /--kvm: on a LAVA lab \(--target\) the device decides the accelerator/],
    [['--stressor-seconds', '5'], /--stressor-seconds sets the stressor boots, and there are none: add --stressor NAME or --set sched/],
    [['--stressor-instances', '2'], /--stressor-instances sets the stressor boots, and there are none/],
    [['--all', '--format', 'json'], /--all widens the lkml table; the json report lists every subject already/],
    [['--cost-model', 'l1i=2097152k,1way,64'], /--cost-model 'l1i=2097152k,1way,64': l1i size 2147483648 is outside 1\.\.2\^30/],
  ];
  for (const [i, [extra, why]] of cases.entries()) {
    const out = `modes-${i}`;
    const r = await runCli(['trial', '--src', src, '--patch', patch, '--out', join(dir, out), '--db', join(dir, `${out}.db`), '--scenario', scenario, '--profile', 'getppid', ...extra], { services: watched() });
    assert.equal(r.code, 2, `${extra.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, why, extra.join(' '));
    assert.ok(!existsSync(join(dir, out)), `${extra.join(' ')}: nothing was written`);
  }
  assert.deepEqual(built, [], 'no kernel was built');
});

test('--per-hunk states its plan and estimated time before anything builds, and past its cap asks for --force', async () => {
  const built: string[] = [];
  const watched = (): Services => ({ trial: { services: { buildKernel: miniBuild(built) }, launcher: scriptedGuest(), probe, cacheDir: dir } });
  const hunks = Array.from({ length: 200 }, (_, i) => `@@ -${10 * i + 1},1 +${10 * i + 1},1 @@\n-a${i}\n+b${i}\n`).join('');
  const big = join(dir, 'big.patch');
  writeFileSync(big, `--- a/kernel/sys_impl.c\n+++ b/kernel/sys_impl.c\n${hunks}`);
  const run = (out: string, extra: string[]) => runCli(['trial', '--src', src, '--patch', big, '--out', join(dir, out), '--db', join(dir, `${out}.db`), '--scenario', scenario, '--profile', 'getppid', '--no-cost', ...extra], { services: watched() });
  const r = await run('big', ['--per-hunk']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /--per-hunk: 200 hunks in the patches: up to 400 kernels built from A's objects \(each hunk alone, and B without each\) and 1200 boots, about 6\.7 h more \(at 21 s a build from A's objects and 13 s a boot, .*\); that is past the 24 kernels --per-hunk builds without --force: add --force/,
  );
  const force = await run('force-alone', ['--force']);
  assert.equal(force.code, 2);
  assert.match(force.stderr, /--force lifts the cap of --per-hunk and --per-commit, and there is neither: drop --force/);
  assert.ok(!existsSync(join(dir, 'big')) && !existsSync(join(dir, 'force-alone')));
  assert.deepEqual(built, []);
});

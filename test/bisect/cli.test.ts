/**
 * `hintlab bisect` end to end through the CLI on a git history made in the
 * test, with the fake lab (test/bisect/history.ts): the text, json and lkml
 * reports, the progress lines, and the refusals before anything runs.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fakeExecutor } from '../../src/macro/fake.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { checkoutState, FakeLab, git, makeHistory } from './history.ts';

const STRESSORS = readFileSync(new URL('../macro/fixtures/stressors-0.15.06.txt', import.meta.url), 'utf8').split(/\s+/).filter(Boolean);
const stressNg = fakeExecutor({ stressors: STRESSORS, step: () => ({ yaml: null, result: { kind: 'exited', code: 0, stderr: '' } }) });

function setup(): { dir: string; src: string; hashes: string[]; args: string[] } {
  const dir = tempDir('hintlab-bisect-cli-');
  const src = join(dir, 'linux');
  const hashes = makeHistory(src, [{ subject: 'comment' }, { subject: 'unlikely() on the error path', adds: 1 }, { subject: 'does not build', breaks: true }, { subject: 'fix the build', fixes: true }, { subject: 'copy the attr on every call', adds: 50 }, { subject: 'comment' }]);
  return { dir, src, hashes, args: ['bisect', '--src', src, '--good', 'v1', '--bad', 'master', '--profile', 'getppid', '--db', join(dir, 'h.db'), '--out', join(dir, 'area')] };
}

/** `body` on a fresh history in a temporary directory, removed afterwards. */
async function inHistory(body: (t: ReturnType<typeof setup>) => Promise<void>): Promise<void> {
  const t = setup();
  try {
    await body(t);
  } finally {
    rmSync(t.dir, { recursive: true, force: true });
  }
}

test('bisect prints the first bad commit, the tested commits and the replay log, and says each step on stderr', () =>
  inHistory(async (t) => {
    const before = checkoutState(t.src);
    const r = await runCli(t.args, { services: { bisect: { lab: new FakeLab(t.src, t.dir) } } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^first bad commit: ${t.hashes[5]}\\n  subject: copy the attr on every call\\n  author:  A U Thor <author@example.org>$`, 'm'));
    assert.match(r.stdout, new RegExp(`^git bisect skip ${t.hashes[3]}$`, 'm'));
    assert.match(r.stderr, /^7 commits from [0-9a-f]{12} \(good\) to [0-9a-f]{12} \(bad\) on the first-parent line; booting both endpoints twice to check that counts repeat$/m);
    assert.match(r.stderr, /^mode: exact: /m);
    assert.match(r.stderr, /^skip [0-9a-f]{12} does not build: build failed: broken: syntax error$/m);
    assert.deepEqual(checkoutState(t.src), before);
    // the log replays in a clone: git itself then names the same first bad commit
    const clone = join(t.dir, 'clone');
    git(t.dir, 'clone', '-q', t.src, clone);
    const log = join(t.dir, 'bisect.log');
    writeFileSync(log, r.stdout.slice(r.stdout.indexOf('git bisect start')));
    assert.match(git(clone, 'bisect', 'replay', log), new RegExp(`^${t.hashes[5]} is the first bad commit$`, 'm'));
  }));

test('--format json lists every booted commit, endpoints included, with value and side', () =>
  inHistory(async (t) => {
    const r = await runCli([...t.args, '--format', 'json'], { services: { bisect: { lab: new FakeLab(t.src, t.dir) } } });
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout) as { firstBad: { commit: string }; steps: { commit: string; value: number | null; side: string }[]; builds: number };
    assert.equal(j.firstBad.commit, t.hashes[5]);
    assert.deepEqual(j.steps.slice(0, 2).map((s) => [s.commit, s.value, s.side]), [[t.hashes[0], 1000, 'good'], [t.hashes[6], 1051, 'bad']]);
    assert.ok(j.steps.some((s) => s.side === 'skip' && s.value === null));
    assert.equal(j.builds, j.steps.filter((s) => s.side !== 'skip').length);
  }));

test('--format lkml is a short regression report naming the commit, the change and how it was measured', () =>
  inHistory(async (t) => {
    const r = await runCli([...t.args, '--format', 'lkml'], { services: { bisect: { lab: new FakeLab(t.src, t.dir) } } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^getppid, guest instructions per call: \+51 instr \(\+5\.10 %\) between v1 and master, bisected to$/m);
    assert.match(r.stdout, new RegExp(`^  commit ${t.hashes[5]} \\("copy the attr on every call"\\)$`, 'm'));
    assert.match(r.stdout, /^ {2}measured: each commit built and booted under qemu -icount \(guest instructions, exact/m);
  }));

test('two profiles, a profile and a stressor, an unknown stressor, a counter without its name right, and a tree that is no git repository are refused before anything boots', () =>
  inHistory(async (t) => {
    const lab = new FakeLab(t.src, t.dir);
    const services = { bisect: { lab } };
    const two = await runCli([...t.args.slice(0, 7), '--profile', 'getppid,getpid', ...t.args.slice(9)], { services });
    assert.equal(two.code, 2);
    assert.match(two.stderr, /--profile getppid,getpid: a bisect follows one count; give one name/);
    const both = await runCli([...t.args, '--stressor', 'fifo'], { services });
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--profile NAME \(instructions per call\) or --stressor NAME \(bogo-ops per guest second\), one of the two/);
    const withStress = { bisect: { lab, stressNg } };
    const unknown = await runCli([...t.args.slice(0, 7), '--stressor', 'fifi', ...t.args.slice(9)], { services: withStress });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /--stressor fifi: .*fifo/);
    const metric = await runCli([...t.args, '--metric', 'cycles'], { services });
    assert.equal(metric.code, 2);
    assert.match(metric.stderr, /--metric cycles: not a cost counter; give one of kernel-instructions\/call/);
    const notGit = await runCli(['bisect', '--src', t.dir, '--good', 'v1', '--bad', 'master', '--profile', 'getppid', '--db', join(t.dir, 'h.db'), '--out', join(t.dir, 'area')], { services });
    assert.equal(notGit.code, 2);
    assert.match(notGit.stderr, /not a git repository/);
    assert.deepEqual(lab.measured, []);
  }));

test('--stressor follows bogo-ops per guest second and says so in the report', () =>
  inHistory(async (t) => {
    const r = await runCli([...t.args.slice(0, 7), '--stressor', 'fifo', ...t.args.slice(9)], { services: { bisect: { lab: new FakeLab(t.src, t.dir), stressNg } } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ {2}fifo@1, stress-ng bogo-ops per guest second: 1001 bogo-ops\/guest-s at its parent, 1051 bogo-ops\/guest-s here: \+50 bogo-ops\/guest-s \(\+5\.00 %\)$/m);
  }));

test('--target lava:// with --cost, --metric or --stressor, or a device type that is not qemu, is refused with exit status 2 before anything builds', () =>
  inHistory(async (t) => {
    const lab = new FakeLab(t.src, t.dir);
    const services = { bisect: { lab, stressNg } };
    const at = ['--target', 'lava://127.0.0.1:9/qemu'];
    const cases: [string[], RegExp][] = [
      [[...t.args, ...at, '--cost'], /--cost needs hintlab's qemu plugin on this machine; the boots of --target run on a LAVA lab: drop --cost or --target/],
      [[...t.args, ...at, '--metric', 'taken-branches/call'], /--metric needs hintlab's qemu plugin on this machine/],
      [[...t.args, ...at, '--cost-model', 'predictor=2bit'], /--cost-model needs hintlab's qemu plugin on this machine/],
      [[...t.args.slice(0, 7), '--stressor', 'fifo', ...t.args.slice(9), ...at], /--stressor boots stress-ng, which does not run on a LAVA lab yet/],
      [[...t.args, '--target', 'lava://127.0.0.1:9/beaglebone-black'], /hintlab writes LAVA jobs for qemu device types only so far/],
      [[...t.args, '--target', 'lava://127.0.0.1:9/qe mu'], /is not a LAVA device type name/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args, { services, env: { HINTLAB_LAVA_TOKEN: 'tok' } });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
    }
    assert.deepEqual(lab.measured, []);
  }));

test('with --target the report says the boots ran on the lab, and a token typed in the address is stored nowhere', () =>
  inHistory(async (t) => {
    const r = await runCli([...t.args, '--target', 'lava://s3cret-token@127.0.0.1:9/qemu', '--format', 'json'], { services: { bisect: { lab: new FakeLab(t.src, t.dir) } } });
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout) as { target: string | null; firstBad: { commit: string } };
    assert.equal(j.target, 'lava://127.0.0.1:9/qemu');
    assert.equal(j.firstBad.commit, t.hashes[5]);
    const stored = readFileSync(join(t.dir, 'h.db')).toString('latin1') + (existsSync(join(t.dir, 'h.db-wal')) ? readFileSync(join(t.dir, 'h.db-wal')).toString('latin1') : '');
    assert.ok(stored.includes('lava://***@127.0.0.1:9/qemu'), 'the command is stored with the token masked');
    assert.ok(!stored.includes('s3cret-token'));
  }));

/**
 * `hintlab session` on a real box over ssh: the qemu test box
 * (test/helpers/qemu-box.ts, TCG) with two Debian cloud kernels, hintlab
 * run as a child process exactly as a user runs it. A full A/B/A session
 * with kexec between the kernels, ending on the box's own kernel; the
 * connection killed mid-run (the failure, the rounds kept, the box given
 * back, then --resume completing the session); kill -9 of hintlab
 * mid-session (nothing left running here, the box back on its own kernel
 * by its watchdog within the bound, then --resume); and the watchdog alone.
 * TCG: the flow and the data are checked, never the figures.
 *
 * Minutes each: behind HINTLAB_SLOW_TESTS=1. Their output is quoted in
 * docs/session.md.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { buildProbe, type ProbeBuild } from '../../src/launch/probe-build.ts';
import { readEnvironment } from '../../src/environment/read.ts';
import { Store } from '../../src/store/store.ts';
import { SshBox } from '../../src/targets/ssh-box.ts';
import { CLI_FROM_SOURCE, tempDir } from '../helpers/cli.ts';
import { descendants, named, survivorsAfter } from '../helpers/procs.ts';
import { requireBox, startQemuBox, type QemuBox } from '../helpers/qemu-box.ts';

const slow = process.env.HINTLAB_SLOW_TESTS === '1' ? false : 'minutes of TCG boots: set HINTLAB_SLOW_TESTS=1';
const skip = slow || requireBox();
let box: QemuBox;
let probe: ProbeBuild;
let dir: string;

before(async () => {
  if (skip) return;
  dir = tempDir('hintlab-session-');
  probe = buildProbe({ static: true });
  box = await startQemuBox();
});
after(async () => {
  await (box as QemuBox | undefined)?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Hintlab {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; seconds: number }>;
}

/** hintlab as a user runs it, against the test box. */
function hintlab(args: string[]): Hintlab {
  const started = Date.now();
  const child = spawn(process.execPath, [...CLI_FROM_SOURCE, ...args], { env: { ...process.env, HINTLAB_SSH_CONFIG: box.config }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => void (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => void (stderr += b.toString()));
  const done = new Promise<Awaited<Hintlab['done']>>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, seconds: (Date.now() - started) / 1000 })));
  return { child, done };
}

const plan = (db: string, prefix: string, extra: string[]) => [
  'session', '--target', box.url,
  '--kernel', `A=${box.other.image}`, '--kernel', `B=${box.own.image}`,
  '--initrd', `A=${box.initrd}`, '--initrd', `B=${box.initrd}`,
  '--profile', 'getppid', '--warmups', '1', '--processes', '1',
  '--label-prefix', prefix, '--db', db, ...extra,
];

/** Measured rounds stored so far for runs labelled `label`, read only (hintlab is writing). */
function roundsOf(db: string, label: string): number {
  try {
    const raw = new Database(db, { readonly: true, fileMustExist: true });
    try {
      return (raw.prepare('SELECT count(*) AS n FROM rounds JOIN runs ON runs.id = rounds.run_id WHERE runs.label = ? AND warmup = 0').get(label) as { n: number }).n;
    } finally {
      raw.close();
    }
  } catch {
    return 0;
  }
}

async function until(what: string, ok: () => boolean, boundMs: number): Promise<void> {
  const end = Date.now() + boundMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out after ${boundMs / 1000} s waiting for ${what}`);
    await sleep(250);
  }
}

/** The box on its own kernel, booted by its default entry (no token), as plain ssh sees it. */
function assertHome(): void {
  const r = box.ssh('uname -r; cat /proc/cmdline');
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n'), [box.own.release, box.append]);
}

function show(what: string, r: { stdout: string; stderr: string; seconds: number }): void {
  console.log(`--- ${what} (${r.seconds.toFixed(0)} s) ---\n${r.stderr}${r.stdout}`);
}

test('a full A/B/A session kexecs between the two kernels, stores each boot as a run on its kernel, and ends on the box\'s own kernel', { skip }, async () => {
  const db = join(dir, 'aba.db');
  const r = await hintlab(plan(db, 'Q-', ['--order', 'ABA', '--ops', '2000', '--rounds', '3', '--watchdog', '60'])).done;
  show('hintlab session (A/B/A)', r);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^compare with: hintlab compare Q-A-1,Q-A-2 Q-B-1 --db /m);
  assert.match(r.stderr, /^back home: reboot: up after/m);
  const store = Store.openExisting(db);
  try {
    const rec = store.sessions.get(1)!;
    assert.equal(rec.status, 'complete');
    assert.equal(rec.box, 'home');
    const runs = rec.steps.map((s) => store.getRun(s.runId!));
    assert.deepEqual(runs.map((x) => [x.label, x.status, x.rounds.filter((y) => !y.warmup).length]), [['Q-A-1', 'complete', 3], ['Q-B-1', 'complete', 3], ['Q-A-2', 'complete', 3]]);
    const releases = runs.map((x) => readEnvironment(x).kernel?.release);
    assert.deepEqual(releases.map((k) => (k?.known ? k.value : null)), [box.other.release, box.own.release, box.other.release]);
    assert.ok(runs.every((x) => x.replicateUnit.known && x.replicateUnit.value === 'boot'));
  } finally {
    store.close();
  }
  assertHome();
  const cmp = await hintlab(['compare', 'Q-A-1,Q-A-2', 'Q-B-1', '--db', db]).done;
  show('hintlab compare', cmp);
  assert.equal(cmp.code, 0, cmp.stderr);
  assert.match(cmp.stdout, /^Units: boots/m);
  assert.match(cmp.stdout, /insufficient units: A has 2 boots and B has 1 boot/);
});

test('the connection killed mid-run fails the step with its rounds kept, the box is given back, and --resume completes the session', { skip }, async () => {
  const db = join(dir, 'cut.db');
  const h = hintlab(plan(db, 'R-', ['--order', 'ABA', '--ops', '100000', '--rounds', '12', '--watchdog', '60']));
  await until('rounds of R-B-1 stored', () => roundsOf(db, 'R-B-1') >= 2, 600_000);
  const masters = descendants(h.child.pid!).filter((p) => p.comm === 'ssh' && readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split('\0').includes('-M'));
  assert.equal(masters.length, 1, named(masters));
  process.kill(masters[0]!.pid, 'SIGKILL');
  const r = await h.done;
  show('hintlab session, its ssh master killed during R-B-1', r);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /step 2\/3: R-B-1 FAILED\n  the target went away under the probe: the ssh master connection was killed by SIGKILL/);
  assert.match(r.stderr, /run #2 \(R-B-1\) is marked failed; its \d+ measured rounds are kept for inspection but never used as valid data/);
  assert.match(r.stderr, /^back home: reboot: up after/m);
  assert.match(r.stderr, /resume it with: hintlab session --resume 1 --db /);
  const kept = roundsOf(db, 'R-B-1');
  assert.ok(kept >= 2, `only ${kept} rounds of R-B-1 kept`);
  assertHome();

  const again = await hintlab(['session', '--resume', '--db', db]).done;
  show('hintlab session --resume', again);
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stderr, /step 1\/3/);
  const store = Store.openExisting(db);
  try {
    assert.equal(store.getRun(2).status, 'failed');
    assert.equal(store.getRun(2).rounds.filter((x) => !x.warmup).length, kept);
    const rec = store.sessions.get(1)!;
    assert.equal(rec.status, 'complete');
    assert.deepEqual(rec.steps.map((s) => [s.status, s.attempts]), [['complete', 1], ['complete', 2], ['complete', 1]]);
    assert.equal(store.resolveRun('R-B-1').status, 'complete');
  } finally {
    store.close();
  }
  assertHome();
});

test('kill -9 of hintlab mid-session leaves nothing running here, the box reboots to its own kernel within the watchdog bound, and --resume completes it', { skip }, async () => {
  const db = join(dir, 'kill.db');
  const h = hintlab(plan(db, 'K-', ['--order', 'AB', '--ops', '100000', '--rounds', '12', '--watchdog', '20']));
  await until('rounds of K-A-1 stored', () => roundsOf(db, 'K-A-1') >= 2, 600_000);
  const tree = descendants(h.child.pid!);
  assert.ok(tree.some((p) => p.comm === 'ssh'), named(tree));
  h.child.kill('SIGKILL');
  const killedAt = Date.now();
  await h.done;
  assert.deepEqual(named(await survivorsAfter(tree, 10_000)), '', 'processes hintlab started outlived it');
  const out = await box.waitFor('uname -r; cat /proc/cmdline', (o) => o.startsWith(`${box.own.release}\n`), 240_000);
  const back = (Date.now() - killedAt) / 1000;
  console.log(`kill -9: nothing left here; the box was back on ${box.own.release} ${back.toFixed(1)} s after the kill (watchdog 20 s, then its reboot)`);
  assert.equal(out.trim().split('\n')[1], box.append);
  assert.ok(back >= 20, `back after ${back} s, before the watchdog's bound`);
  assert.match(box.console(), /hintlab watchdog: no heartbeat from hintlab for 20 s: rebooting to the default kernel/);

  const again = await hintlab(['session', '--resume', '--db', db]).done;
  show('hintlab session --resume (after kill -9)', again);
  assert.equal(again.code, 0, again.stderr);
  const store = Store.openExisting(db);
  try {
    const rec = store.sessions.get(1)!;
    assert.equal(rec.status, 'complete');
    assert.deepEqual(rec.steps.map((s) => s.attempts), [2, 1]);
    assert.equal(store.getRun(1).status, 'failed');
    assert.match(store.getRun(1).error ?? '', /interrupted: hintlab stopped during this step/);
  } finally {
    store.close();
  }
  assertHome();
});

test('left on a test kernel with its heartbeat gone, the box reboots to its own kernel by itself within the watchdog bound', { skip }, async () => {
  const b = await SshBox.connect(box.url, { probe, configFile: box.config }, { watchdogSeconds: 15, bootTimeoutSeconds: 240 });
  await b.boot({ label: 'A', image: box.other.image, initrd: box.initrd, token: 't2-1-cafe' }, new AbortController().signal);
  const left = Date.now();
  // hintlab gone: the heartbeat stops with the connection, the watchdog stays armed on the box
  await b.close();
  await box.waitFor('uname -r', (o) => o.trim() === box.own.release, 240_000);
  const seconds = (Date.now() - left) / 1000;
  assertHome();
  assert.ok(seconds >= 15, `back after ${seconds} s, before the 15 s bound`);
  console.log(`watchdog: the box was back on ${box.own.release} ${seconds.toFixed(1)} s after hintlab left it (bound 15 s, then the reboot)`);
});

/**
 * Hostile cases of the third pass about concurrency and the disk: several
 * benches creating one new database at once; the disk filling during a
 * paired bench (two probe processes taking turns, a duet, one process with
 * a switched file); and what a bench killed with kill -9 leaves in $TMPDIR.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fillLeaving } from '../../test/helpers/tmpfs.ts';
import { statuses } from './cases-processes.ts';
import { BIN, type Case, crashed, hintlab, type Outcome, type Scratch, short, summary } from './harness.ts';

/** `hintlab ARGS` without waiting: its exit status and stderr when it ends. */
function started(s: Scratch, args: string[]): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: s.dir, env: s.env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stderr })));
}

const TRIES = 5;
const AT_ONCE = 6;

async function createdAtOnce(s: Scratch): Promise<Outcome> {
  const failures: string[] = [];
  let badTries = 0;
  for (let t = 0; t < TRIES; t++) {
    const db = join(s.dir, `at-once-${t}.db`);
    const ends = await Promise.all(
      Array.from({ length: AT_ONCE }, (_, k) => started(s, ['bench', '--db', db, '--profile', 'getppid', '--rounds', '20', '--warmups', '0', '--processes', '1', '--ops', '1000', '--label', `p${k}`])),
    );
    const failed = ends.filter((e) => e.status !== 0);
    if (failed.length) badTries++;
    failures.push(...failed.map((e) => e.stderr.split('\n').find((l) => l.startsWith('hintlab:')) ?? `exit ${e.status}`));
  }
  const complete = Array.from({ length: TRIES }, (_, t) => statuses(join(s.dir, `at-once-${t}.db`)));
  return {
    observed: `${badTries} of ${TRIES} tries had a failure, ${failures.length} of ${TRIES * AT_ONCE} runs failed${failures[0] ? ` (first: ${short(failures[0], 90)})` : ''}; databases: ${complete.join(' / ')}`,
    clean: failures.length === 0 && complete.every((c) => c === `${AT_ONCE} complete`),
  };
}

/** Mount a 1 MiB tmpfs in the scratch directory, leave `leaveKb` free, run `body` on it, unmount. */
function onSmallDisk(s: Scratch, name: string, leaveKb: number, body: (dir: string) => Outcome): Outcome {
  const dir = join(s.dir, name);
  mkdirSync(dir);
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { encoding: 'utf8' });
  if (mounted.status !== 0) return { observed: `not run: cannot mount a tmpfs (${short(mounted.stderr, 60)})`, clean: false };
  try {
    fillLeaving(dir, leaveKb);
    return body(dir);
  } finally {
    spawnSync('umount', [dir]);
  }
}

/** A paired bench on a disk that fills while it measures: one message (a disk-full line and what became of the run), exit 1, no stack. */
function pairedDiskFull(s: Scratch, name: string, extra: string[], check: () => string | null = () => null): Outcome {
  return onSmallDisk(s, name, 400, (dir) => {
    const db = join(dir, 'x.db');
    const r = hintlab(s, ['bench', '--db', db, '--profile', 'getppid', '--ops', '2000', '--time', '120', '--label-b', 'B', ...extra], 300_000);
    const own = r.stderr.split('\n').filter((l) => l.startsWith('hintlab:'));
    const late = /TypeError|not open|Uncaught|unhandled/i.test(r.stderr);
    const left = check();
    const runs = statuses(db);
    // both sides end alike: failed together, or both left for `runs` to read as incomplete when the disk took no more
    const split = /failed/.test(runs) && /running/.test(runs);
    return {
      observed: `${summary(r)}; ${own.length} hintlab: line(s)${late ? ', a write to the closed store reported' : ''}; stored run status: ${runs}${left ? `; ${left}` : ''}`,
      clean: r.status === 1 && !crashed(r) && !late && !split && own.length === 1 && /^hintlab: disk full while storing round/.test(own[0]!) && left === null,
    };
  });
}

const jobDirs = (s: Scratch): string[] => readdirSync(s.env.TMPDIR!).filter((n) => /^hintlab-(job|go)-/.test(n));

/** Start `hintlab ARGS`, wait until its job directory exists, kill -9 it; then run `next` and count what is left in $TMPDIR. */
async function killedThenNext(s: Scratch, args: string[], next: string[]): Promise<Outcome> {
  const before = new Set(jobDirs(s));
  const child = spawn(process.execPath, [BIN, ...args], { cwd: s.dir, env: s.env, stdio: 'ignore' });
  for (let i = 0; i < 600 && child.exitCode === null && !jobDirs(s).some((n) => n.startsWith('hintlab-job-') && !before.has(n)); i++) await sleep(100);
  // the probe is running once its job directory exists; a little longer so it is inside its loop
  await sleep(1000);
  const exited = new Promise((r) => child.on('close', r));
  child.kill('SIGKILL');
  await exited;
  const left = jobDirs(s).filter((n) => !before.has(n));
  const r = hintlab(s, next);
  const after = jobDirs(s);
  return {
    observed: `after kill -9: ${left.length} left (${left.map((n) => n.replace(/-[^-]+$/, '-*')).join(', ') || 'none'}); next ${summary(r)}; then ${after.length} left`,
    clean: r.status === 0 && after.length === 0,
  };
}

function knob(s: Scratch, name: string): string {
  const path = join(s.dir, name);
  writeFileSync(path, '0\n');
  return path;
}

export const concurrencyCases: Case[] = [
  {
    action: `${AT_ONCE} \`hintlab bench\` started at once on one new database, ${TRIES} times`,
    expected: 'every run stores and completes; the schema is created once',
    run: (s) => createdAtOnce(s),
  },
  {
    action: 'disk full during an alternation bench of two processes (`--label-b B --inject-seccomp-b 64`, the database on a 1 MiB tmpfs, 400 KiB free)',
    expected: 'both probes stopped; one message: the disk-full line and what became of the runs; exit 1; no write to the closed store',
    run: (s) => pairedDiskFull(s, 'small-turns', ['--inject-seccomp-b', '64']),
  },
  {
    action: 'disk full during a duet (`--design duet --inject-seccomp-b 64`, the same small disk)',
    expected: 'both probes stopped; one message; exit 1; no write to the closed store',
    run: (s) => pairedDiskFull(s, 'small-duet', ['--design', 'duet', '--inject-seccomp-b', '64']),
  },
  {
    action: 'disk full during an alternation in one process (`--switch-file F=1`, the same small disk)',
    expected: 'one message; exit 1; B not left running beside a failed A; F holds its original',
    run(s) {
      const f = knob(s, 'full-knob');
      return pairedDiskFull(s, 'small-alt', ['--switch-file', `${f}=1`], () => (readFileSync(f, 'utf8') === '0\n' ? null : `F holds ${JSON.stringify(readFileSync(f, 'utf8'))}`));
    },
  },
  {
    action: 'kill -9 of `hintlab bench` while its probe runs, then another bench',
    expected: 'the next bench removes the empty job directory the killed one left in $TMPDIR',
    run: (s) => killedThenNext(s, ['bench', '--db', join(s.dir, 'killed.db'), '--profile', 'getppid', '--rounds', '100000000', '--warmups', '0', '--processes', '1', '--ops', '1000'], ['bench', '--db', join(s.dir, 'killed.db'), '--profile', 'getppid', '--rounds', '2', '--warmups', '0', '--processes', '1', '--ops', '1000']),
  },
  {
    action: 'kill -9 of an alternation bench (`--switch-file F=1`), then another',
    expected: 'the next bench removes the go-FIFO and job directories the killed one left; F restored (its watchdog)',
    async run(s) {
      const f = knob(s, 'killed-knob');
      const db = join(s.dir, 'killed-alt.db');
      const out = await killedThenNext(s, ['bench', '--db', db, '--profile', 'getppid', '--ops', '2000', '--time', '600', '--label-b', 'B', '--switch-file', `${f}=1`], ['bench', '--db', db, '--profile', 'getppid', '--ops', '2000', '--time', '1', '--label', 'A2', '--label-b', 'B2', '--switch-file', `${f}=1`]);
      const held = existsSync(f) ? readFileSync(f, 'utf8') : 'missing';
      return { observed: `${out.observed}; F ${JSON.stringify(held)}`, clean: out.clean && held === '0\n' };
    },
  },
];

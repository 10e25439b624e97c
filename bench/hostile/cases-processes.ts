/**
 * Hostile cases about processes and the disk: kill -9 of hintlab while it
 * runs qemu, stress-ng or make; a disk that fills during a run; and what
 * the lkml report's "Reproduce" section says about runs made in a scratch
 * directory.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { cachedCloudKernel } from '../../test/helpers/cloud-kernel.ts';
import { BIN, type Case, crashed, hintlab, type Outcome, type Scratch, short, summary } from './harness.ts';

/**
 * Pids of live processes whose command name starts with `comm`, in the process
 * group given or anywhere below the process given (hintlab runs long-lived
 * commands under its supervisor, so they are its grandchildren).
 */
function processes(comm: string, where: { root?: number; pgid?: number }): number[] {
  const ps = spawnSync('ps', ['-eo', 'pid=,ppid=,pgid=,stat=,comm='], { encoding: 'utf8' }).stdout;
  const rows = ps.split('\n').map((l) => l.trim().split(/\s+/)).filter((r) => r.length >= 5);
  const below = new Set<number>(where.root === undefined ? [] : [where.root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of rows) {
      if (below.has(Number(ppid)) && !below.has(Number(pid))) {
        below.add(Number(pid));
        grew = true;
      }
    }
  }
  return rows
    .filter(([pid, , pgid, stat, name]) => name?.startsWith(comm) && !stat?.startsWith('Z') && ((where.root !== undefined && below.has(Number(pid)) && Number(pid) !== where.root) || Number(pgid) === where.pgid))
    .map(([pid]) => Number(pid));
}

/**
 * Start `hintlab ARGS`, wait until it has started a `comm` child, kill -9
 * hintlab, and report whether that child's process group outlived it.
 */
async function killNine(s: Scratch, args: string[], comm: string): Promise<Outcome> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: s.dir, env: s.env, stdio: 'ignore' });
  let pids: number[] = [];
  for (let i = 0; i < 600 && pids.length === 0 && child.exitCode === null; i++) {
    await sleep(100);
    pids = processes(comm, { root: child.pid! });
  }
  if (pids.length === 0) {
    child.kill('SIGKILL');
    return { observed: `no ${comm} started within 60 s (hintlab ${child.exitCode === null ? 'still running' : `exited ${child.exitCode}`})`, clean: false };
  }
  const pgid = Number(spawnSync('ps', ['-o', 'pgid=', '-p', String(pids[0])], { encoding: 'utf8' }).stdout.trim());
  child.kill('SIGKILL');
  // Long enough for a child that writes to its closed pipe to die of SIGPIPE: only an orphan that outlives that counts.
  await sleep(5000);
  const left = [...new Set([...pids.filter(isAlive), ...(pgid > 1 ? processes(comm, { pgid }) : [])])];
  // Clean up after hintlab: these are processes this pass started.
  for (const p of left) spawnSync('kill', ['-9', String(p)]);
  return { observed: left.length ? `${left.length} ${comm} process(es) still running 5 s after kill -9 of hintlab` : `no ${comm} left 5 s after kill -9 of hintlab`, clean: left.length === 0 };
}

function isAlive(pid: number): boolean {
  const stat = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).stdout.trim();
  return stat !== '' && !stat.startsWith('Z');
}

/** A stand-in kernel tree whose tinyconfig target runs a long sleep under make. */
function slowTree(s: Scratch): string {
  const src = join(s.dir, 'slow-linux');
  mkdirSync(src, { recursive: true });
  writeFileSync(join(src, 'Makefile'), 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\nEXTRAVERSION =\n\n%:\n\tsleep 600\n');
  return src;
}

/** Stored run statuses of a database, e.g. "2 failed" (a run left `running` by a process that has ended reads back incomplete). */
export function statuses(db: string): string {
  try {
    const conn = new Database(db, { readonly: true, fileMustExist: true });
    const rows = conn.prepare('SELECT status, COUNT(*) AS n FROM runs GROUP BY status').all() as { status: string; n: number }[];
    conn.close();
    return rows.map((r) => `${r.n} ${r.status}`).join(', ') || 'no runs';
  } catch (err) {
    return `unreadable (${short((err as Error).message, 60)})`;
  }
}

const vmlinuz = cachedCloudKernel();
const noKernel: Outcome = { observed: 'not run: no cached cloud kernel (test/fixtures/fetch-cloud-kernel.sh)', clean: false };

/**
 * The commands of an lkml report's Reproduce section: a command starts at
 * a two-space indent, its continuation lines are indented further.
 */
function reproduceCommands(lkml: string): string[] {
  const lines = lkml.split('\n');
  const at = lines.findIndex((l) => l.startsWith('Reproduce'));
  const commands: string[] = [];
  for (const line of at < 0 ? [] : lines.slice(at + 1)) {
    if (line.trim() === '') break;
    const text = line.trim().replace(/\\$/, '');
    if (/^ {2}\S/.test(line) || commands.length === 0) commands.push(text);
    else commands[commands.length - 1] = `${commands[commands.length - 1] ?? ''}${text}`;
  }
  return commands;
}

/** Reproduce lists each command once, each with --db, and no scratch-directory absolute paths. */
function judgeReproduce(s: Scratch, args: string[]): Outcome {
  const r = hintlab(s, args);
  const commands = reproduceCommands(r.stdout);
  const dupes = commands.length - new Set(commands).size;
  const absolute = commands.filter((l) => l.includes(s.dir)).length;
  const noDb = commands.filter((l) => !l.includes('--db')).length;
  return {
    observed: `${summary(r)}; ${commands.length} commands, ${dupes} repeated, ${absolute} with scratch absolute paths, ${noDb} without --db`,
    clean: r.status === 0 && commands.length > 0 && dupes === 0 && absolute === 0 && noDb === 0,
  };
}

export const processCases: Case[] = [
  {
    action: 'kill -9 of `hintlab vm` while qemu boots a cloud kernel',
    expected: 'qemu dies with hintlab',
    run: (s) => (vmlinuz ? killNine(s, ['vm', '--kernel', `A=${vmlinuz}`, '--order', 'A', '--accel', 'tcg', '--rounds', '1000', '--db', join(s.dir, 'vm-kill.db')], 'qemu-system') : noKernel),
  },
  {
    action: 'kill -9 of `hintlab macro` while stress-ng runs',
    expected: 'stress-ng and its stressors die with hintlab',
    run: (s) => killNine(s, ['macro', '--stressor', 'yield', '--instances', '1', '--seconds', '60', '--cooldown', '0', '--repeats', '1', '--db', join(s.dir, 'macro-kill.db')], 'stress-ng'),
  },
  {
    action: 'kill -9 of `hintlab kernel build` while make runs',
    expected: 'make and its children die with hintlab',
    run: (s) => killNine(s, ['kernel', 'build', '--src', slowTree(s), '--out', join(s.dir, 'kbuild-out'), '--label', 'A'], 'make'),
  },
  {
    action: 'disk full during a bench run (the database on a 1 MiB tmpfs)',
    expected: 'a one-line disk-full message naming the round and run, non-zero exit, committed rounds kept, the run not left running',
    run(s) {
      const fs = join(s.dir, 'small');
      mkdirSync(fs);
      const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', fs], { encoding: 'utf8' });
      if (mounted.status !== 0) return { observed: `not run: cannot mount a tmpfs (${short(mounted.stderr, 60)})`, clean: false };
      try {
        const db = join(fs, 'x.db');
        const r = hintlab(s, ['bench', '--db', db, '--profile', 'getppid', '--rounds', '100000', '--warmups', '0', '--processes', '1', '--ops', '1000'], 300_000);
        const runs = statuses(db);
        return {
          observed: `${summary(r)}; runs: ${runs}`,
          clean: r.status !== 0 && r.status !== null && !crashed(r) && /disk|full|space/i.test(r.stderr) && !/running|incomplete/.test(runs),
        };
      } finally {
        spawnSync('umount', [fs]);
      }
    },
  },
  {
    action: 'report A B --format lkml: Reproduce lines of two bench runs stored with --db results.db (relative)',
    expected: 'each distinct command once, every one with --db as typed, no scratch absolute paths',
    run: (s) => judgeReproduce(s, ['report', 'A', 'B', '--format', 'lkml', '--db', 'results.db']),
  },
  {
    action: 'report --format lkml of an A/B/A made by one `hintlab vm --icount` command',
    expected: 'the vm command once, every command with --db, no scratch absolute paths',
    run(s) {
      if (!vmlinuz) return noKernel;
      const made = hintlab(s, ['vm', '--kernel', `A=${vmlinuz}`, '--kernel', `B=${vmlinuz}`, '--order', 'ABA', '--accel', 'tcg', '--icount', '--profile', 'getppid', '--rounds', '3', '--warmups', '1', '--ops', '2000', '--db', 'vm.db'], 600_000);
      if (made.status !== 0) return { observed: `the vm run failed: ${summary(made)}`, clean: false };
      return judgeReproduce(s, ['report', '1', '2', '3', '--format', 'lkml', '--db', 'vm.db']);
    },
  },
];

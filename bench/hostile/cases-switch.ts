/**
 * Hostile cases about `bench --switch-file` and bench's run control: two
 * runs on one file, a run whose watchdog died with it, the built package,
 * binary and oversized files, FIFOs and devices, an A value that would not
 * restore the file, a file that is no knob, SIGTERM and SIGHUP, huge --ops
 * and labels, and usage errors' exit status.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { lockPathFor, readRecord } from '../../src/bench/switch-lock.ts';
import { BIN, type Case, crashed, hintlab, nodeKind, type Outcome, refused, type Scratch, short, summary } from './harness.ts';

/** A quick interleaved bench on `switches` (many short probe processes when `long`). */
function benchArgs(s: Scratch, db: string, switches: string[], long = false): string[] {
  const plan = long ? ['--ops', '5000', '--warmups', '0', '--rounds', '4000', '--processes', '2000'] : ['--ops', '2000', '--warmups', '0', '--rounds', '8', '--processes', '4'];
  return ['bench', '--db', join(s.dir, db), '--profile', 'getppid', ...plan, ...switches.flatMap((sw) => ['--switch-file', sw])];
}

let knobs = 0;
function knob(s: Scratch, contents: string | Buffer): string {
  const path = join(s.dir, `knob-${knobs++}`);
  writeFileSync(path, contents);
  return path;
}

/** Poll until `path` holds `want` (at most `seconds`). */
async function holds(path: string, want: string, seconds: number): Promise<boolean> {
  for (let i = 0; i < seconds * 20; i++) {
    if (readFileSync(path, 'utf8') === want) return true;
    await sleep(50);
  }
  return false;
}

/** A long run in the background that has switched `path` to `value`, with its stderr. */
async function switching(s: Scratch, path: string, value: string): Promise<{ child: ChildProcess; stderr: () => string; ended: Promise<number | null> }> {
  const child = spawn(process.execPath, [BIN, ...benchArgs(s, `bg-${knobs++}.db`, [`${path}=${value}`], true)], { cwd: s.dir, env: s.env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const ended = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  if (!(await holds(path, value, 60))) throw new Error(`the first run never switched the file: ${short(err)}`);
  return { child, stderr: () => err, ended };
}

/** Start `hintlab ARGS` in the background; resolves with its status and stderr. */
function background(s: Scratch, args: string[]): { child: ChildProcess; stderrNow: () => string; done: Promise<{ status: number | null; stderr: string }> } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: s.dir, env: s.env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return { child, stderrNow: () => stderr, done: new Promise((r) => child.on('exit', (status) => r({ status, stderr }))) };
}

/** Freeze `child` at a moment `path` holds `value` (SIGSTOP, checked, SIGCONT and again otherwise). */
async function frozenAt(child: ChildProcess, path: string, value: string): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    child.kill('SIGSTOP');
    if (readFileSync(path, 'utf8') === value) return true;
    child.kill('SIGCONT');
    await sleep(30);
  }
  return false;
}

const firstLine = (text: string): string => short(text.split('\n').find((l) => l.startsWith('hintlab:')) ?? text.split('\n')[0] ?? '');

/** A switch refused with exit 2 and the file left byte for byte. */
function refusedSwitch(s: Scratch, contents: string | Buffer, args: (path: string) => string[], mentions: RegExp): Outcome {
  const path = knob(s, contents);
  const before = readFileSync(path);
  const r = hintlab(s, benchArgs(s, 'refused.db', []).concat(args(path)), 60_000);
  const same = readFileSync(path).equals(before);
  return { observed: `${summary(r)}; file ${same ? 'unchanged' : 'changed'}`, clean: refused(r, mentions) && same };
}

async function signalled(s: Scratch, signal: NodeJS.Signals, code: number): Promise<Outcome> {
  const path = knob(s, 'original\n');
  const run = await switching(s, path, 'switched');
  run.child.kill(signal);
  const status = await run.ended;
  const back = readFileSync(path, 'utf8');
  const err = run.stderr();
  const named = firstLine(err).includes(signal);
  return {
    observed: `exit ${status}: ${firstLine(err)}; file ${back === 'original\n' ? 'restored' : `holds '${back.trim()}'`}${/hintlab watchdog:/.test(err) ? ' by the watchdog' : ''}`,
    clean: status === code && back === 'original\n' && named && !/hintlab watchdog:|internal error/.test(err),
  };
}

export const switchCases: Case[] = [
  {
    action: 'two runs switch one file: `bench --switch-file F=B1` running, then `bench --switch-file F=B2`',
    expected: "the second refuses (exit 1), naming the first run's pid and command, and writes nothing (no run stored); F is the original after the first ends",
    async run(s) {
      const path = knob(s, 'original\n');
      const first = await switching(s, path, 'B1');
      const r = hintlab(s, benchArgs(s, 'second.db', [`${path}=B2`]), 60_000);
      const stored = hintlab(s, ['runs', '--db', join(s.dir, 'second.db')]).stdout;
      first.child.kill('SIGINT');
      await first.ended;
      const after = readFileSync(path, 'utf8');
      const names = r.stderr.includes(`hintlab pid ${first.child.pid}`) && r.stderr.includes('command: hintlab bench');
      return {
        observed: `${summary(r)}; the second stored ${/no runs in/.test(stored) ? 'no run' : 'runs'}; F after both: '${after.trim()}'; pid and command named: ${names ? 'yes' : 'no'}`,
        clean: r.status === 1 && names && /no runs in/.test(stored) && after === 'original\n' && !crashed(r),
      };
    },
  },
  {
    action: 'the same two runs, the second with `--wait`',
    expected: "the second says whom it waits for, starts once the first restored F, measures A on F's original, and F is the original at the end",
    async run(s) {
      const path = knob(s, 'original\n');
      const first = await switching(s, path, 'B1');
      const second = background(s, [...benchArgs(s, 'w2.db', [`${path}=B2`]), '--wait']);
      let waited = false;
      for (let i = 0; i < 600 && !waited; i++) {
        await sleep(50);
        waited = /waiting: /.test(second.stderrNow());
      }
      const during = readFileSync(path, 'utf8');
      first.child.kill('SIGINT');
      const [a, b] = [await first.ended, await second.done];
      const after = readFileSync(path, 'utf8');
      const runs = hintlab(s, ['runs', 'A', '--verbose', '--db', join(s.dir, 'w2.db')]);
      const measuredOnOriginal = runs.stdout.includes(`${path}=original`);
      return {
        observed: `first (interrupted) exit ${a}, second exit ${b.status}: ${firstLine(b.stderr)}; F while it waited: '${during.trim()}'; second's A wrote ${measuredOnOriginal ? 'the original' : 'something else'}; F after: '${after.trim()}'`,
        clean: waited && a === 130 && b.status === 0 && measuredOnOriginal && after === 'original\n',
      };
    },
  },
  {
    action: 'kill -9 of a switching run and of its watchdog (F left at B1), then a new run on F; then F written back by hand and the run again',
    expected: "the stale lock does not block, but the new run refuses while F holds B1, naming the dead run and F's original; once F is back it takes the lock over",
    async run(s) {
      const path = knob(s, 'original\n');
      const first = await switching(s, path, 'B1');
      const record = readRecord(lockPathFor(path));
      if (!record?.watchdog) throw new Error('no record with the watchdog pid in the lock');
      if (!(await frozenAt(first.child, path, 'B1'))) throw new Error('could not catch the first run while F held B1');
      process.kill(record.watchdog, 'SIGKILL');
      first.child.kill('SIGKILL');
      await first.ended;
      await sleep(500);
      const left = readFileSync(path, 'utf8');
      const r = hintlab(s, benchArgs(s, 'stale.db', [`${path}=B2`]), 60_000);
      writeFileSync(path, 'original\n');
      const again = hintlab(s, benchArgs(s, 'stale2.db', [`${path}=B2`]), 120_000);
      const after = readFileSync(path, 'utf8');
      return {
        observed: `F left at '${left.trim()}'; new run: ${summary(r)}; after the hand restore: ${summary(again)}, F '${after.trim()}'`,
        clean: left === 'B1' && refused(r, new RegExp(`hintlab pid ${first.child.pid} .*died without restoring it.*'original'`)) && again.status === 0 && /takes the lock over/.test(again.stderr) && after === 'original\n',
      };
    },
  },
  {
    action: '`bench --switch-file F=1` from the built package (bin/hintlab.js, dist/)',
    expected: 'runs (the watchdog ships in dist/) and F holds its original after',
    run(s) {
      const path = knob(s, '0\n');
      const r = hintlab(s, benchArgs(s, 'built.db', [`${path}=1`]), 120_000);
      const after = readFileSync(path, 'utf8');
      return { observed: `${summary(r)}; F '${after.trim()}'`, clean: r.status === 0 && after === '0\n' };
    },
  },
  {
    action: '`--switch-file F=1` on a binary file (`\\xff\\xfe\\x00abc\\x80\\n`, 8 bytes)',
    expected: 'runs and writes the original back byte for byte',
    run(s) {
      const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x61, 0x62, 0x63, 0x80, 0x0a]);
      const path = knob(s, bytes);
      const r = hintlab(s, benchArgs(s, 'binary.db', [`${path}=1`]), 120_000);
      const after = readFileSync(path);
      return { observed: `${summary(r)}; F is ${after.length} bytes, ${after.equals(bytes) ? 'identical' : 'different'}`, clean: r.status === 0 && after.equals(bytes) };
    },
  },
  {
    action: '`--switch-file F=1` on a 100 KiB file',
    expected: 'refused, naming the 64 KiB bound; F unchanged',
    run: (s) => refusedSwitch(s, Buffer.alloc(100 * 1024, 0x31), (p) => ['--switch-file', `${p}=1`], /64 KiB/),
  },
  {
    action: '`--switch-file FIFO=1` (a FIFO nobody writes)',
    expected: 'refused at once as not a regular file; the FIFO stays',
    run(s) {
      const fifo = join(s.dir, 'fifo-knob');
      spawnSync('mkfifo', [fifo]);
      const r = hintlab(s, benchArgs(s, 'fifo.db', [`${fifo}=1`]), 20_000);
      return { observed: `${summary(r)}; the node is now ${nodeKind(fifo)}`, clean: refused(r, /a FIFO/) && nodeKind(fifo) === 'a FIFO' };
    },
  },
  {
    action: '`--switch-file /dev/zero=1`',
    expected: 'refused at once as a character device (nothing read)',
    run(s) {
      const r = hintlab(s, benchArgs(s, 'zero.db', ['/dev/zero=1']), 20_000);
      return { observed: summary(r), clean: refused(r, /a character device/) };
    },
  },
  {
    action: '`--switch-file F=qux --switch-file-a F=bar` on F holding `foo bar`',
    expected: 'refused (writing bar would not give foo bar back); F unchanged',
    run: (s) => refusedSwitch(s, 'foo bar\n', (p) => ['--switch-file', `${p}=qux`, '--switch-file-a', `${p}=bar`], /writing it leaves the file reading 'bar'/),
  },
  {
    action: "`--switch-file F=x` on another user's file outside /proc/sys, /sys and debugfs",
    expected: 'refused without --force, saying why; F unchanged',
    run: (s) =>
      refusedSwitch(s, 'theirs\n', (p) => {
        chownSync(p, 65534, 65534);
        return ['--switch-file', `${p}=x`];
      }, /pass --force/),
  },
  { action: 'SIGTERM to a switching bench', expected: 'runs failed, reported as SIGTERM, F restored by hintlab itself, exit 143', run: (s) => signalled(s, 'SIGTERM', 143) },
  { action: 'SIGHUP to a switching bench', expected: 'runs failed, reported as SIGHUP, F restored by hintlab itself, exit 129', run: (s) => signalled(s, 'SIGHUP', 129) },
  {
    action: '`bench --ops 9007199254740991`',
    expected: 'refused after a short pilot, with the estimated round time, the cap and the largest --ops that fits',
    run(s) {
      const r = hintlab(s, ['bench', '--db', join(s.dir, 'ops.db'), '--profile', 'getppid', '--ops', '9007199254740991'], 60_000);
      return { observed: summary(r), clean: refused(r, /would take about .* capped at 60 s, so --ops can be at most \d+/) };
    },
  },
  {
    action: '`bench --label` of 100 KB',
    expected: 'refused, naming the 64-character cap',
    run(s) {
      const r = hintlab(s, ['bench', '--db', join(s.dir, 'label.db'), '--profile', 'getppid', '--label', 'x'.repeat(100 * 1024)]);
      return { observed: summary(r), clean: refused(r, /at most 64/) };
    },
  },
  {
    action: '`compare A C` with no run C; `bench --profile getpid`',
    expected: "both exit 2 like every usage error; the second suggests 'getppid'",
    run(s) {
      const cmp = hintlab(s, ['compare', 'A', 'C', '--db', s.db]);
      const prof = hintlab(s, ['bench', '--profile', 'getpid', '--db', join(s.dir, 'p.db')]);
      return { observed: `${summary(cmp)} / ${summary(prof)}`, clean: refused(cmp, /no run with id or label 'C'/) && refused(prof, /did you mean 'getppid'\?/) };
    },
  },
];

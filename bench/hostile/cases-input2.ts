/**
 * Hostile cases of the second hardening pass about input and surroundings:
 * ssh addresses with shell metacharacters, a TMPDIR ssh cannot bind a
 * socket in, damaged or forged profiles, a gzip bomb, escape sequences and
 * NULs in scenario files, the database made immutable or removed mid-run,
 * -o into a pipe whose reader left, and --db naming a device or a FIFO.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { Store } from '../../src/store/store.ts';
import { requireSsh, startSshd } from '../../test/helpers/sshd.ts';
import { BIN, type Case, crashed, hintlab, refused, type Scratch, short, summary } from './harness.ts';

const QUICK = ['--rounds', '2', '--warmups', '0', '--processes', '1', '--ops', '1000'];

/** gcov JSON of one function with one `if`, its count and format_version replaced. */
function gcovJson(s: Scratch, name: string, count: number | string, version = '"1"'): string {
  const file = join(s.dir, `${name}.gcov.json`);
  writeFileSync(file, `{"gcc_version": "12.2.0", "format_version": ${version}, "current_working_directory": "${s.dir}", "files": [{"file": "a.c", "functions": [{"name": "ksys_a", "start_line": 1, "end_line": 6}], "lines": [{"line_number": 3, "count": ${count}, "function_name": "ksys_a", "branches": []}]}]}`);
  return file;
}

/** The small C tree the gcov cases name as --src. */
function cSrc(s: Scratch): string {
  const src = join(s.dir, 'c2src');
  mkdirSync(src, { recursive: true });
  writeFileSync(join(src, 'a.c'), 'long ksys_a(int x)\n{\n\tif (x < 0)\n\t\treturn -EINVAL;\n\treturn x;\n}\n');
  return src;
}

function refusedCase(action: string, expected: string, args: (s: Scratch) => string[], mentions: RegExp, status = 2): Case {
  return {
    action,
    expected,
    run(s) {
      const r = hintlab(s, args(s));
      const clean = status === 2 ? refused(r, mentions) : r.status === status && mentions.test(r.stderr) && !crashed(r);
      return { observed: summary(r), clean };
    },
  };
}

/** A scratch bzImage-shaped file for behave's argument checks (nothing boots). */
function fakeImage(s: Scratch): string {
  const image = join(s.dir, 'bzImage');
  writeFileSync(image, Buffer.concat([Buffer.alloc(0x202), Buffer.from('HdrS'), Buffer.alloc(64)]));
  return image;
}

function behave(s: Scratch, scenario: string): string[] {
  const image = fakeImage(s);
  return ['behave', '--kernel', `A=${image}`, '--kernel', `B=${image}`, '--scenario', scenario, '--db', join(s.dir, 'behave.db')];
}

/** Start a long bench on `db`, do `act` to its directory once rounds are stored, and report how it ended. */
async function underBench(s: Scratch, dir: string, act: (db: string) => void, undo: (db: string) => void): Promise<{ status: number | null; signal: string | null; stderr: string }> {
  mkdirSync(dir, { recursive: true });
  const db = join(dir, 'r.db');
  const child = spawn(process.execPath, [BIN, 'bench', '--db', db, '--profile', 'getppid', '--label', 'L', '--rounds', '400', '--warmups', '0', '--processes', '1', '--ops', '100000'], { cwd: s.dir, env: s.env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const ended = once(child, 'close');
  for (let i = 0; i < 600 && !existsSync(`${db}-shm`); i++) await sleep(50);
  await sleep(1500);
  act(db);
  const [status, signal] = (await ended) as [number | null, string | null];
  undo(db);
  return { status, signal, stderr };
}

function ended(r: { status: number | null; signal: string | null; stderr: string }): string {
  const line = r.stderr.split('\n').find((l) => l.startsWith('hintlab:'));
  return `${r.signal ? `killed by ${r.signal}` : `exit ${r.status}`}: ${line ? short(line) : 'no message'}`;
}

export const input2Cases: Case[] = [
  {
    action: "bench --target 'ssh://a;touch${IFS}x' (shell metacharacters in the host)",
    expected: 'refused naming the character, exit 2; no file x created',
    run(s) {
      const r = hintlab(s, ['bench', '--target', 'ssh://a;touch${IFS}x', '--profile', 'getppid', ...QUICK, '--db', join(s.dir, 'ssh.db')]);
      const made = existsSync(join(s.dir, 'x'));
      return { observed: `${summary(r)}; ${made ? 'x was created' : 'no x'}`, clean: refused(r, /';' \(U\+003B\)/) && !made };
    },
  },
  {
    action: 'bench --target ssh://USER@127.0.0.1:PORT (a throwaway sshd) with a 90-character TMPDIR, then one holding %d%h',
    expected: 'both runs complete (the control socket is placed where ssh can bind it)',
    async run(s) {
      if (requireSsh()) return { observed: 'not run: sshd or the ssh client is missing', clean: true };
      const sshd = await startSshd();
      try {
        const seen: string[] = [];
        for (const name of ['t'.repeat(90), 'pct%d%h']) {
          const tmp = join(s.dir, name);
          mkdirSync(tmp, { recursive: true });
          const r = hintlab({ dir: s.dir, env: { ...s.env, TMPDIR: tmp, HINTLAB_SSH_CONFIG: sshd.config } }, ['bench', '--target', sshd.url, '--profile', 'getppid', ...QUICK, '--db', join(s.dir, 'ssh-tmp.db')]);
          seen.push(`${name.length > 20 ? '90 characters' : name}: ${summary(r)}`);
        }
        return { observed: seen.join('; '), clean: seen.every((x) => /: exit 0/.test(x)) };
      } finally {
        await sshd.stop();
      }
    },
  },
  refusedCase('hints on gcov JSON with format_version "99"', 'refused naming the file and the versions read, exit 1', (s) => ['hints', gcovJson(s, 'v99', 5, '"99"'), '--src', cSrc(s)], /v99\.gcov\.json: gcov JSON format_version "99" is not one hintlab reads/, 1),
  refusedCase('hints on gcov JSON with a count of 1e30', 'refused naming the file, the line and the function, exit 1', (s) => ['hints', gcovJson(s, 'huge', '1e30'), '--src', cSrc(s)], /huge\.gcov\.json: .*a\.c:3 in ksys_a: "count" 1e\+30 is above 2\^53-1/, 1),
  refusedCase('hints on gcov JSON with a count of 2.5', 'refused naming the file, the line and the function, exit 1', (s) => ['hints', gcovJson(s, 'frac', '2.5'), '--src', cSrc(s)], /frac\.gcov\.json: .*a\.c:3 in ksys_a: "count" 2\.5 is not a whole number/, 1),
  {
    action: 'hints on a branch_annotated with a count of 10^26',
    expected: 'refused naming the file, the row, the function and its line, exit 1',
    run(s) {
      const dir = join(s.dir, 'prof');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'branch_annotated'), ' correct incorrect  %        Function                  File              Line\n ------- ---------  -        --------                  ----              ----\n 100000000000000000000000000        0   0 ksys_a                         a.c                  3\n');
      const r = hintlab(s, ['hints', join(dir, 'branch_annotated'), '--src', cSrc(s)]);
      return { observed: summary(r), clean: r.status === 1 && /branch_annotated:3: count 100000000000000000000000000 of ksys_a \(a\.c:3\)/.test(r.stderr) && !crashed(r) };
    },
  },
  {
    action: 'hints on a 1.2 MB .gcov.json.gz that inflates to 1.2 GB (peak RSS by /usr/bin/time)',
    expected: 'refused naming the file and the 256 MiB cap; peak RSS well under 1 GB',
    run(s) {
      const bomb = join(s.dir, 'bomb.gcov.json.gz');
      const chunk = gzipSync(Buffer.alloc(1200 * 2 ** 20), { level: 9 });
      writeFileSync(bomb, chunk);
      const r = spawnSync('/usr/bin/time', ['-f', 'maxrss_kb=%M', process.execPath, BIN, 'hints', bomb, '--src', cSrc(s)], { cwd: s.dir, env: s.env, encoding: 'utf8' });
      const rss = Number(/maxrss_kb=(\d+)/.exec(r.stderr)?.[1] ?? NaN) / 1024;
      const line = r.stderr.split('\n').find((l) => l.startsWith('hintlab:')) ?? 'no message';
      return {
        observed: `exit ${r.status}: ${short(line)}; compressed ${(chunk.length / 1e6).toFixed(1)} MB; peak RSS ${rss.toFixed(0)} MiB`,
        clean: r.status === 1 && /decompresses to more than 256 MiB/.test(line) && rss < 1024,
      };
    },
  },
  {
    action: 'behave --scenario FILE holding an OSC title sequence and ESC[2J',
    expected: 'refused naming the line and the character; no raw ESC on stderr',
    run(s) {
      const file = join(s.dir, 'osc.scn');
      writeFileSync(file, 'scenario mine\n\x1b]0;owned\x07getppid\x1b[2J\n');
      const r = hintlab(s, behave(s, file));
      return { observed: `${summary(r).replace(/\x1b/g, '<ESC>')}; ${r.stderr.includes('\x1b') ? 'raw ESC on stderr' : 'no raw ESC'}`, clean: refused(r, /osc\.scn:2: a control character \(U\+001B/) && !r.stderr.includes('\x1b') };
    },
  },
  refusedCase('behave --scenario FILE with a NUL inside a call name', 'refused naming the NUL and its column, not "unknown call"', (s) => {
    const file = join(s.dir, 'nul.scn');
    writeFileSync(file, 'scenario mine\ngetppid\0x\n');
    return behave(s, file);
  }, /nul\.scn:2: a control character \(U\+0000 at column 8\)/),
  refusedCase('behave --scenario DIRECTORY', 'refused saying it is a directory', (s) => behave(s, s.dir), /it is a directory/),
  {
    action: 'chattr +i on the database, its -wal and -shm during a bench run',
    expected: 'a message naming the file and the cause, non-zero exit, no SIGBUS',
    async run(s) {
      const files = (db: string) => [db, `${db}-wal`, `${db}-shm`];
      const r = await underBench(s, join(s.dir, 'immutable'), (db) => execFileSync('chattr', ['+i', ...files(db)]), (db) => execFileSync('chattr', ['-i', ...files(db)]));
      return { observed: ended(r), clean: r.signal === null && r.status === 1 && /became unwritable/.test(r.stderr) };
    },
  },
  {
    action: "rm -rf of the database's directory during a bench run",
    expected: 'a message saying the database was deleted, non-zero exit',
    async run(s) {
      const dir = join(s.dir, 'doomed');
      const r = await underBench(s, dir, () => execFileSync('rm', ['-rf', dir]), () => {});
      return { observed: ended(r), clean: r.signal === null && r.status === 1 && /was deleted/.test(r.stderr) };
    },
  },
  {
    action: 'export RUN -o /dev/stdout | head -c 1 (a run of 5000 rounds: more than the pipe holds)',
    expected: 'exit 0 and no message, as plain stdout into head',
    run(s) {
      const db = join(s.dir, 'big.db');
      const store = Store.open(db);
      const id = store.createRun({ label: 'big', kind: 'bench', unit: 'ns/call', command: 'hintlab bench', hintlabVersion: 't', replicateUnit: 'process', params: { subjects: ['getppid'], ops: 10, warmups: 0, rounds: 5000, cpu: 1, subjectParams: {}, extra: {} }, environment: {} });
      for (let i = 0; i < 5000; i++) store.addRound(id, { seq: i, subject: 'getppid', index: i, replicate: 0, warmup: false, ops: 10, total: 1000 + i, value: 100 + i / 10, unit: 'ns/call', direction: 'lower-is-better' });
      store.finishRun(id, 'complete');
      store.close();
      const r = spawnSync('bash', ['-c', `"${process.execPath}" "${BIN}" export big --format csv -o /dev/stdout --db "${db}" | head -c 1 >/dev/null; exit \${PIPESTATUS[0]}`], { cwd: s.dir, env: s.env, encoding: 'utf8' });
      return { observed: `exit ${r.status}${r.stderr.trim() ? `: ${short(r.stderr.trim())}` : ', no message'}`, clean: r.status === 0 && r.stderr.trim() === '' };
    },
  },
  {
    action: '--db naming a character device (mknod c 1 3) and a FIFO',
    expected: 'refused naming the kind of node, exit 2; no NAME-journal beside either',
    run(s) {
      const dir = join(s.dir, 'nodes');
      mkdirSync(dir, { recursive: true });
      execFileSync('mknod', [join(dir, 'null'), 'c', '1', '3']);
      execFileSync('mkfifo', [join(dir, 'fifo')]);
      const a = hintlab(s, ['runs', '--db', join(dir, 'null')], 20_000);
      const b = hintlab(s, ['bench', '--profile', 'getppid', ...QUICK, '--db', join(dir, 'fifo')], 20_000);
      const left = readdirSync(dir).sort().join(', ');
      return { observed: `${summary(a)}; ${summary(b)}; directory holds ${left}`, clean: refused(a, /character device/) && refused(b, /FIFO/) && left === 'fifo, null' };
    },
  },
];

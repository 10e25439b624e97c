/**
 * Hostile cases about files: where `-o` writes, what `--db` opens, and
 * whether a read-only command creates anything.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { type Case, crashed, hintlab, nodeKind, refused, type Result, type Scratch, summary } from './harness.ts';

/** How many runs the database at `path` holds, or why it cannot be read. */
export function runsIn(path: string): string {
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    const n = (db.prepare('SELECT COUNT(*) AS n FROM runs').get() as { n: number }).n;
    db.close();
    return `${n} runs`;
  } catch (err) {
    return `unreadable (${(err as Error).message})`;
  }
}

/** A fresh copy of the scratch database with runs A and B. */
function dbCopy(s: Scratch, name: string): string {
  const path = join(s.dir, name);
  copyFileSync(s.db, path);
  return path;
}

const exportTo = (s: Scratch, out: string, db = s.db): Result => hintlab(s, ['export', 'A', '--format', 'csv', '-o', out, '--db', db]);

/** A clear one-line error and the database file left byte for byte as it was. */
function dbRefusal(s: Scratch, db: string, args: string[] = ['runs']): { observed: string; clean: boolean } {
  const before = existsSync(db) && nodeKind(db) === 'a regular file' ? readFileSync(db) : null;
  const r = hintlab(s, [...args, '--db', db]);
  const same = before === null || (existsSync(db) && readFileSync(db).equals(before));
  return { observed: `${summary(r)}; file ${same ? 'unchanged' : 'changed'}`, clean: refused(r, /--db|database/) && same };
}

export const fileCases: Case[] = [
  {
    action: 'export -o onto a character device (a null device made with mknod c 1 3 in the scratch directory, as `-o /dev/null` is)',
    expected: 'written through or refused; the device node stays a device',
    run(s) {
      const dev = join(s.dir, 'null');
      spawnSync('mknod', [dev, 'c', '1', '3']);
      const r = exportTo(s, dev);
      const kind = nodeKind(dev);
      return { observed: `${summary(r)}; the node is now ${kind}`, clean: kind === 'a character device' && !crashed(r) };
    },
  },
  {
    action: 'export -o onto a FIFO with a reader',
    expected: 'written through the FIFO (the reader gets the CSV) or refused; the FIFO stays',
    async run(s) {
      const fifo = join(s.dir, 'fifo');
      spawnSync('mkfifo', [fifo]);
      const got = join(s.dir, 'fifo-read');
      // The reader gives up after 20 s, so a hintlab that replaces the FIFO never leaves it hanging.
      const reader = spawn('timeout', ['20', 'sh', '-c', `cat "${fifo}" > "${got}"`], { stdio: 'ignore' });
      const done = new Promise((r) => reader.on('exit', r));
      const r = exportTo(s, fifo);
      const kind = nodeKind(fifo);
      // A reader still blocked in open() means nothing was written through; stop it.
      await Promise.race([done, sleep(2000)]);
      reader.kill();
      await done;
      const read = existsSync(got) ? readFileSync(got, 'utf8') : '';
      const through = read.startsWith('run_id,');
      return {
        observed: `${summary(r)}; the node is now ${kind}; the reader got ${through ? 'the CSV' : `${read.length} bytes`}`,
        clean: kind === 'a FIFO' && !crashed(r) && (through || refused(r)),
      };
    },
  },
  {
    action: 'export -o onto a symlink to a file',
    expected: 'the link is followed: its target holds the CSV, the link stays a link',
    run(s) {
      const target = join(s.dir, 'target.csv');
      const link = join(s.dir, 'link.csv');
      writeFileSync(target, 'old\n');
      symlinkSync(target, link);
      const r = exportTo(s, link);
      const kind = nodeKind(link);
      const written = readFileSync(target, 'utf8').startsWith('run_id,');
      return { observed: `${summary(r)}; the link is now ${kind}; target ${written ? 'holds the CSV' : 'unchanged'}`, clean: r.status === 0 && kind === 'a symlink' && written };
    },
  },
  {
    action: 'export -o onto a directory',
    expected: 'refused naming -o, exit 2; the directory untouched',
    run(s) {
      const dir = join(s.dir, 'outdir');
      mkdirSync(dir);
      const r = exportTo(s, dir);
      return { observed: `${summary(r)}; the path is now ${nodeKind(dir)}`, clean: refused(r) && nodeKind(dir) === 'a directory' };
    },
  },
  {
    action: 'export RUN -o X --db X (output onto the results database)',
    expected: 'refused; the database keeps every run',
    run(s) {
      const db = dbCopy(s, 'self.db');
      const r = exportTo(s, db, db);
      const left = runsIn(db);
      return { observed: `${summary(r)}; database: ${left}`, clean: refused(r) && left === '2 runs' };
    },
  },
  {
    action: 'export RUN -o X-wal --db X (output onto the database\'s WAL file)',
    expected: 'refused; the database keeps every run',
    run(s) {
      const db = dbCopy(s, 'wal.db');
      const r = exportTo(s, `${db}-wal`, db);
      const left = runsIn(db);
      return { observed: `${summary(r)}; database: ${left}`, clean: refused(r) && left === '2 runs' };
    },
  },
  {
    action: "bench --db ''",
    expected: 'refused as an empty path, exit 2, nothing run',
    run(s) {
      const r = hintlab(s, ['bench', '--db', '', '--profile', 'getppid', '--rounds', '2', '--warmups', '0', '--processes', '1', '--ops', '1000']);
      return { observed: summary(r), clean: refused(r, /--db/) };
    },
  },
  {
    action: '--db in a read-only directory (a read-only bind mount)',
    expected: 'one line naming the file, the cause and the fix; exit 2',
    run(s) {
      const ro = join(s.dir, 'ro');
      mkdirSync(ro);
      spawnSync('mount', ['--bind', ro, ro]);
      spawnSync('mount', ['-o', 'remount,bind,ro', ro]);
      try {
        return dbRefusal(s, join(ro, 'x.db'), ['bench', '--profile', 'getppid', '--rounds', '2', '--warmups', '0', '--processes', '1', '--ops', '1000']);
      } finally {
        spawnSync('umount', [ro]);
      }
    },
  },
  { action: '--db naming a directory', expected: 'one line naming the file and the fix; exit 2', run: (s) => dbRefusal(s, s.dir) },
  {
    action: '--db under a regular file (file/x.db)',
    expected: 'one line naming the file and the fix; exit 2',
    run(s) {
      writeFileSync(join(s.dir, 'plain'), 'x');
      return dbRefusal(s, join(s.dir, 'plain', 'x.db'));
    },
  },
  {
    action: '--db naming a file that is not SQLite',
    expected: 'one line naming the file; exit 2; the file unchanged',
    run(s) {
      const path = join(s.dir, 'notes.txt');
      writeFileSync(path, 'these are my notes, not a database\n'.repeat(200));
      return dbRefusal(s, path);
    },
  },
  {
    action: '--db naming a truncated database (its first 3000 bytes)',
    expected: 'one line naming the file; exit 2; the file unchanged',
    run(s) {
      const path = join(s.dir, 'truncated.db');
      writeFileSync(path, readFileSync(s.db).subarray(0, 3000));
      return dbRefusal(s, path);
    },
  },
  {
    action: '--db naming a database from a newer schema (user_version 999)',
    expected: 'refused naming the version; exit 2; not one byte written',
    run(s) {
      const path = dbCopy(s, 'newer.db');
      const db = new Database(path);
      db.pragma('journal_mode = DELETE');
      db.pragma('user_version = 999');
      db.close();
      return dbRefusal(s, path);
    },
  },
  ...['runs', 'export A', 'compare A B', 'report A B'].map(
    (command): Case => ({
      action: `${command} --db on a missing database`,
      expected: 'says there is no database; creates nothing',
      run(s) {
        const path = join(s.dir, `missing-${command.split(' ')[0]}.db`);
        const r = hintlab(s, [...command.split(' '), '--db', path]);
        const created = existsSync(path);
        return { observed: `${summary(r)}; ${created ? 'a database was created' : 'nothing created'}`, clean: !created && r.status !== 0 && !crashed(r) };
      },
    }),
  ),
];

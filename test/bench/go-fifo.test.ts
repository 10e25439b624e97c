/**
 * The go FIFO's directory (src/bench/alternation.ts): named by hintlab's
 * pid, removed at close, and, when a hintlab killed with SIGKILL left it,
 * removed by the next run: only a directory of a pid that no longer runs,
 * holding nothing but the FIFO.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { GO_DIR_PREFIX, GoFifo } from '../../src/bench/alternation.ts';
import { sweepStalePidDirs } from '../../src/proc/pid-dirs.ts';
import { tempDir } from '../helpers/cli.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

/** The pid of a process that has ended. */
function deadPid(): number {
  const r = spawnSync('sh', ['-c', 'echo $$']);
  return Number(r.stdout.toString().trim());
}

function leftBy(pid: number, name: string, extra: string | null = null): string {
  const path = join(dir, `hintlab-go-${pid}-${name}`);
  mkdirSync(path);
  spawnSync('mkfifo', [join(path, 'go')]);
  if (extra) writeFileSync(join(path, extra), 'not hintlab\'s');
  return path;
}

test('a FIFO directory left by a dead hintlab is removed; a live one, one holding other files and other names stay', () => {
  const dead = deadPid();
  const stale = leftBy(dead, 'aaaaaa');
  const live = leftBy(process.ppid, 'bbbbbb');
  const foreign = leftBy(dead, 'cccccc', 'notes.txt');
  mkdirSync(join(dir, 'hintlab-go-xyz'));
  assert.deepEqual(sweepStalePidDirs(GO_DIR_PREFIX, dir, ['go']), [stale]);
  assert.deepEqual([existsSync(stale), existsSync(live), existsSync(foreign), existsSync(join(dir, 'hintlab-go-xyz'))], [false, true, true, true]);
});

test('a GoFifo lives in a directory named by this pid and leaves nothing at close; making one sweeps what a dead run left', () => {
  const stale = leftBy(deadPid(), 'dddddd');
  const fifo = new GoFifo(dir);
  assert.ok(!existsSync(stale));
  assert.match(fifo.path, new RegExp(`/hintlab-go-${process.pid}-[^/]+/go$`));
  fifo.send('g');
  fifo.close();
  assert.ok(!readdirSync(dir).some((n) => n.startsWith(`hintlab-go-${process.pid}-`)));
});

/**
 * Temporary directories named by hintlab's pid (src/proc/pid-dirs.ts): a
 * host job's directory that a hintlab killed with SIGKILL left empty is
 * removed by the next hintlab, and nothing that may be someone's is.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { makePidDir, sweepStalePidDirs } from '../../src/proc/pid-dirs.ts';
import { JOB_DIR_PREFIX } from '../../src/targets/host.ts';
import { CLI_FROM_SOURCE, tempDir } from '../helpers/cli.ts';

/** The pid of a process that has ended. */
function deadPid(): number {
  return Number(spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim());
}

test('an empty job directory of a dead pid is removed; a live pid\'s, one holding a file, an unnamed one and other prefixes stay', () => {
  const dir = tempDir();
  const dead = deadPid();
  const made = (name: string, file: string | null = null): string => {
    mkdirSync(join(dir, name));
    if (file) writeFileSync(join(dir, name, file), 'output a user may want\n');
    return join(dir, name);
  };
  const stale = made(`hintlab-job-${dead}-aaaaaa`);
  const live = made(`hintlab-job-${process.ppid}-bbbbbb`);
  const holding = made(`hintlab-job-${dead}-cccccc`, 'stress-ng.log');
  const unnamed = made('hintlab-job-dddddd');
  const other = made(`hintlab-jobs-${dead}-eeeeee`);
  writeFileSync(join(dir, `hintlab-job-${dead}-ffffff`), 'a file, not a directory');
  assert.deepEqual(sweepStalePidDirs(JOB_DIR_PREFIX, dir, []), [stale]);
  assert.deepEqual([live, holding, unnamed, other, join(dir, `hintlab-job-${dead}-ffffff`)].map(existsSync), [true, true, true, true, true]);
});

test('the first directory of a kind in a process sweeps, later ones do not: one made between blocks never costs a scan', () => {
  const dir = tempDir();
  const first = join(dir, `x-${deadPid()}-aaaaaa`);
  mkdirSync(first);
  const mine = makePidDir('x', [], dir);
  assert.match(mine, new RegExp(`/x-${process.pid}-[^/]+$`));
  assert.equal(existsSync(first), false, 'swept before the first');
  const second = join(dir, `x-${deadPid()}-bbbbbb`);
  mkdirSync(second);
  makePidDir('x', [], dir);
  assert.equal(existsSync(second), true, 'not swept again by the same process');
});

/** Wait until `dir` holds a job directory, or the process ended. */
async function jobDirAppears(dir: string, child: ReturnType<typeof spawn>): Promise<string | null> {
  const exited = { ended: false };
  child.on('exit', () => (exited.ended = true));
  for (;;) {
    const name = readdirSync(dir).find((n) => n.startsWith(`${JOB_DIR_PREFIX}-`));
    if (name !== undefined) return name;
    if (exited.ended) return null;
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a host bench killed with kill -9 leaves its empty job directory, named by its pid; the next bench removes it', async () => {
  const tmp = tempDir();
  const db = join(tempDir(), 'h.db');
  const env = { ...process.env, TMPDIR: tmp };
  const bench = ['bench', '--db', db, '--profile', 'getppid', '--ops', '1000', '--warmups', '0'];
  const killed = spawn(process.execPath, [...CLI_FROM_SOURCE, ...bench, '--rounds', '100000000'], { env, stdio: 'ignore' });
  const left = await jobDirAppears(tmp, killed);
  const exited = new Promise((r) => killed.on('exit', r));
  killed.kill('SIGKILL');
  await exited;
  assert.ok(left?.startsWith(`${JOB_DIR_PREFIX}-${killed.pid}-`), `a job directory named by pid ${killed.pid}: ${left}`);
  assert.deepEqual(readdirSync(join(tmp, left!)), [], 'left empty');
  const next = spawnSync(process.execPath, [...CLI_FROM_SOURCE, ...bench, '--rounds', '1'], { env, encoding: 'utf8' });
  assert.equal(next.status, 0, next.stderr);
  assert.deepEqual(readdirSync(tmp).filter((n) => n.startsWith(`${JOB_DIR_PREFIX}-`)), [], 'the next bench removed it and its own');
});

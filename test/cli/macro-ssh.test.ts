/**
 * `hintlab macro --target ssh://...` end to end against a real sshd on
 * 127.0.0.1 (the "box" is this machine) with the real stress-ng: the stored
 * run carries the box's environment, and kill -9 of hintlab leaves no
 * stress-ng on the box.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Store } from '../../src/store/store.ts';
import { CLI_FROM_SOURCE, runCli, tempDir } from '../helpers/cli.ts';
import { descendants, named, survivorsAfter } from '../helpers/procs.ts';
import { requireSsh, startSshd, type TestSshd } from '../helpers/sshd.ts';
import { requireAll, requireTool } from '../helpers/tools.ts';

const skip = requireAll(requireSsh(), requireTool('stress-ng', 'stress-ng'));
let box: TestSshd;
let dir: string;

before(async () => {
  if (skip) return;
  box = await startSshd();
  dir = tempDir();
});
after(async () => {
  await (box as TestSshd | undefined)?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

let dbs = 0;
const env = (): NodeJS.ProcessEnv => ({ ...process.env, HINTLAB_SSH_CONFIG: box.config, HINTLAB_DB: join(dir, `db-${++dbs}.sqlite`) });

/** Rounds stored so far, read only (hintlab may be writing the database). */
function storedRounds(path: string): number {
  if (!existsSync(path)) return 0;
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare('SELECT count(*) AS n FROM rounds').get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}

/** stress-ng processes whose parent chain reaches an sshd of the test box (its sessions), not this test's own. */
function stressNgOnBox(): ReturnType<typeof descendants> {
  const sshd = Number(readFileSync(join(box.dir, 'sshd.pid'), 'utf8').trim());
  return descendants(sshd).filter((p) => p.comm.startsWith('stress-ng'));
}

test('macro --target runs stress-ng on the box and stores its rounds with the box\'s environment, tagged remote', { skip }, async () => {
  const e = env();
  const res = await runCli(['macro', '--target', box.url, '--stressor', 'get', '--instances', '1', '--seconds', '1', '--repeats', '2', '--cooldown', '0', '--label', 'M'], { env: e });
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stderr, new RegExp(`^${box.url.replace(/\./g, '\\.')}: stress-ng \\S+: 1 stressor x instances 1 x 2 repeats of 1 s, 0 s cool-down`, 'm'));
  assert.match(res.stdout, new RegExp(`^${box.url.replace(/\./g, '\\.')}\\nrun #1 'M': macro, kernel \\S+, complete`));
  const store = Store.open(e.HINTLAB_DB!);
  try {
    const run = store.resolveRun('M');
    assert.equal(run.status, 'complete');
    assert.equal(run.rounds.length, 2);
    assert.deepEqual(run.rounds.map((r) => [r.subject, r.replicate]), [['get@1', 0], ['get@1', 1]]);
    assert.ok(run.rounds.every((r) => r.value > 0 && r.unit === 'bogo-ops/s'));
    assert.equal(run.environment.where, 'remote');
    assert.equal((run.environment.remote as { url: string }).url, box.url);
    assert.match((run.environment.stressNg as { version: string }).version, /^\d+\.\d+/);
  } finally {
    store.close();
  }
});

test('kill -9 of hintlab macro --target leaves no stress-ng on the box and no ssh here', { skip }, async () => {
  const e = env();
  const node = spawn(process.execPath, [...CLI_FROM_SOURCE, 'macro', '--target', box.url, '--stressor', 'get', '--instances', '1', '--seconds', '60', '--repeats', '1', '--cooldown', '0'], {
    env: e,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((r) => node.on('exit', () => r()));
  try {
    const end = Date.now() + 120_000;
    while (stressNgOnBox().length === 0) {
      assert.ok(Date.now() < end, 'stress-ng started on the box');
      await sleep(200);
    }
    const here = descendants(node.pid!);
    const there = stressNgOnBox();
    node.kill('SIGKILL');
    await exited;
    assert.equal(named(await survivorsAfter([...here, ...there], 15_000)), '');
    assert.equal(storedRounds(e.HINTLAB_DB!), 0, 'an invocation cut short stores no round');
  } finally {
    node.kill('SIGKILL');
  }
});

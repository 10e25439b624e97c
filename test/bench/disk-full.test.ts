/**
 * Disk full in the middle of `hintlab bench`, on a real full file system (a
 * small tmpfs): the probe is stopped, the committed rounds stay, the run is
 * marked failed or left incomplete, and the user reads one clear line.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { Store } from '../../src/store/store.ts';
import { runCli, CLI_FROM_SOURCE } from '../helpers/cli.ts';
import { fillLeaving, mountTmpfs } from '../helpers/tmpfs.ts';


test('disk full while storing rounds stops the probe, keeps the committed rounds and names the file system', async (t) => {
  const fs = mountTmpfs(1024);
  if ('skip' in fs) { t.skip(fs.skip); return; }
  t.after(fs.unmount);
  const db = join(fs.dir, 'h.db');
  Store.open(db).close();
  fillLeaving(fs.dir, 96);
  // a process of its own, so the run's owner is gone afterwards as after any real failure
  const res = spawnSync(process.execPath, [...CLI_FROM_SOURCE, 'bench', '--db', db, '--profile', 'getppid', '--ops', '2000', '--warmups', '0', '--rounds', '100000', '--processes', '1', '--label', 'full'], { encoding: 'utf8' });
  assert.equal(res.status, 1, res.stderr);
  assert.doesNotMatch(res.stderr, /internal error|SqliteError|\n\s+at /);
  assert.match(res.stderr, new RegExp(`^hintlab: disk full while storing round \\d+ of run #1 \\(full\\): free space on ${fs.dir} \\(tmpfs\\)$`, 'm'));
  assert.match(res.stderr, /run #1 \(full\) keeps its \d+ committed measured rounds and is (marked failed|left incomplete)/);
  const conn = new Database(db, { readonly: true });
  const stored = (conn.prepare('SELECT COUNT(*) AS n FROM rounds').get() as { n: number }).n;
  const status = (conn.prepare('SELECT status FROM runs WHERE id = 1').get() as { status: string }).status;
  conn.close();
  assert.ok(stored > 0, 'rounds committed before the disk filled are kept');
  assert.ok(stored < 100000, 'the probe was stopped');
  assert.ok(status === 'failed' || status === 'running', status);
  const list = await runCli(['runs', '--db', db]);
  assert.match(list.stdout, /#1 +full +bench .* (failed|incomplete)$/m, `${list.stdout}${list.stderr} `);
});

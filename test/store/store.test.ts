import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { Store } from '../../src/store/store.ts';
import { SCHEMA_VERSION } from '../../src/store/schema.ts';
import { tempDir } from '../helpers/cli.ts';

const params = { subjects: ['getppid'], ops: 10, warmups: 0, rounds: 2, cpu: 1, subjectParams: {}, extra: {} };
const newRun = (label: string | null) => ({ label, kind: 'bench' as const, unit: 'ns/call' as const, command: 'hintlab bench', hintlabVersion: 't', params, environment: { a: 1 } });
const round = (seq: number, value: number) => ({ seq, subject: 'getppid', index: seq, warmup: false, ops: 10, total: value * 10, value, unit: 'ns/call' as const, direction: 'lower-is-better' as const });

test('rounds written by one store are read back by another connection in order', () => {
  const path = join(tempDir(), 'r.db');
  const w = Store.open(path);
  const id = w.createRun(newRun('A'));
  w.addRound(id, round(0, 100));
  w.addRound(id, round(1, 102));
  // a second connection sees both rounds before the run finishes: each round is its own commit
  const r = Store.open(path);
  const seen = r.getRun(id);
  assert.deepEqual(seen.rounds.map((x) => x.value), [100, 102]);
  assert.equal(seen.status, 'running');
  w.finishRun(id, 'complete');
  assert.equal(r.getRun(id).status, 'complete');
  w.close();
  r.close();
});

test('labels resolve to the newest run with that label; ids resolve directly', () => {
  const s = Store.open(':memory:');
  const a1 = s.createRun(newRun('A'));
  const a2 = s.createRun(newRun('A'));
  assert.equal(s.resolveRun('A').id, a2);
  assert.equal(s.resolveRun(String(a1)).id, a1);
  assert.equal(s.resolveRun(`#${a1}`).id, a1);
  assert.throws(() => s.resolveRun('nope'), /no run with id or label 'nope'/);
});

test('a run whose writer died reads back as incomplete with its rounds intact', () => {
  const path = join(tempDir(), 'r.db');
  const s = Store.open(path);
  const id = s.createRun(newRun(null));
  s.addRound(id, round(0, 100));
  s.close();
  // pretend the writer was another process that no longer exists
  const db = new Database(path);
  db.prepare('UPDATE runs SET owner = ? WHERE id = ?').run('some-other-boot:1', id);
  db.close();
  const again = Store.open(path);
  const run = again.getRun(id);
  assert.equal(run.status, 'incomplete');
  assert.equal(run.rounds.length, 1);
  again.close();
});

test('a database from a newer hintlab is refused with the path and the fix', () => {
  const path = join(tempDir(), 'new.db');
  const db = new Database(path);
  db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
  db.close();
  assert.throws(() => Store.open(path), (err: Error) => {
    assert.match(err.message, new RegExp(`${path}: database schema version ${SCHEMA_VERSION + 1} is newer`));
    assert.match(err.message, /Upgrade hintlab/);
    return true;
  });
});

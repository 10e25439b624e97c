import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Store } from '../../src/store/store.ts';
import { SCHEMA_VERSION } from '../../src/store/schema.ts';
import { tempDir } from '../helpers/cli.ts';

const params = { subjects: ['getppid'], ops: 10, warmups: 0, rounds: 2, cpu: 1, subjectParams: {}, extra: {} };
const newRun = (label: string | null) => ({ label, kind: 'bench' as const, unit: 'ns/call' as const, replicateUnit: 'process' as const, command: 'hintlab bench', hintlabVersion: 't', params, environment: { a: 1 } });
const round = (seq: number, value: number) => ({ seq, subject: 'getppid', index: seq, replicate: 0, warmup: false, ops: 10, total: value * 10, value, unit: 'ns/call' as const, direction: 'lower-is-better' as const });

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

test('every round keeps the unit of replication it was measured in, and the run says what a unit is', () => {
  const s = Store.open(':memory:');
  const id = s.createRun({ ...newRun('A'), replicateUnit: 'boot' });
  s.addRound(id, { ...round(0, 100), replicate: 0 });
  s.addRound(id, { ...round(1, 101), replicate: 2 });
  const run = s.getRun(id);
  assert.deepEqual(run.replicateUnit, { known: true, value: 'boot' });
  assert.deepEqual(run.rounds.map((r) => r.replicate), [0, 2]);
  assert.throws(() => s.addRound(id, { ...round(2, 102), replicate: -1 }), /CHECK constraint failed/);
  s.close();
});

test('a schema-1 database is migrated in place; its runs read back as one unit each, the unit unknown with the reason', () => {
  const path = join(tempDir(), 'old.db');
  const db = new Database(path);
  db.exec(readFileSync(new URL('../fixtures/schema-1.sql', import.meta.url), 'utf8'));
  db.close();
  const s = Store.open(path);
  const run = s.resolveRun('old');
  assert.deepEqual(run.rounds.map((r) => [r.value, r.replicate]), [[200, 0], [195, 0], [196, 0]]);
  assert.equal(run.replicateUnit.known, false);
  assert.match(run.replicateUnit.reason, /before units of replication were stored \(schema 1\); the whole run counts as one unit/);
  s.close();
  const raw = new Database(path, { readonly: true });
  assert.equal(raw.pragma('user_version', { simple: true }), SCHEMA_VERSION);
  assert.deepEqual(raw.prepare('SELECT DISTINCT replicate FROM rounds').all(), [{ replicate: null }]);
  raw.close();
});

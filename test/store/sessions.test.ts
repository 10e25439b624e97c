/**
 * Sessions in the store (schema 3): created with their labelled steps,
 * every step change read back at once, a session whose process died read
 * as interrupted (never as running), and taken over by a resume.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { SCHEMA_VERSION } from '../../src/store/schema.ts';
import { Store } from '../../src/store/store.ts';
import { tempDir } from '../helpers/cli.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

test('a session is stored with its steps, labelled from its new id, and every step change reads back at once', () => {
  const path = join(dir, 'a.db');
  const store = Store.open(path);
  const id = store.sessions.create({ target: 'ssh://lab@box1', plan: { version: 1, order: ['A', 'B'] }, command: 'hintlab session' }, (n) => [
    { kernelLabel: 'A', bootIndex: 1, runLabel: `s${n}-A-1` },
    { kernelLabel: 'B', bootIndex: 1, runLabel: `s${n}-B-1` },
  ]);
  assert.equal(id, 1);
  store.sessions.stepStarted(id, 0, 's1-1-abcd');
  store.sessions.stepBooted(id, 0, { method: 'kexec', waitedMs: 18000 });
  store.sessions.stepFinished(id, 0, 'complete', null);
  store.sessions.setHome(id, { release: '6.1.0-57-cloud-amd64' });
  store.sessions.setBox(id, 'away');
  const rec = store.sessions.get(id)!;
  assert.equal(rec.status, 'running');
  assert.equal(rec.live, true);
  assert.deepEqual(rec.plan, { version: 1, order: ['A', 'B'] });
  assert.deepEqual(rec.home, { release: '6.1.0-57-cloud-amd64' });
  assert.equal(rec.box, 'away');
  assert.deepEqual(rec.steps.map((s) => [s.runLabel, s.status, s.attempts, s.token]), [['s1-A-1', 'complete', 1, 's1-1-abcd'], ['s1-B-1', 'pending', 0, null]]);
  assert.deepEqual(rec.steps[0]!.boot, { method: 'kexec', waitedMs: 18000 });
  store.close();
  const raw = new Database(path, { readonly: true });
  assert.equal(raw.pragma('user_version', { simple: true }), SCHEMA_VERSION);
  raw.close();
});

test('a session left running by a process that died reads back as interrupted; a resume takes it over as running again', () => {
  const path = join(dir, 'b.db');
  const store = Store.open(path);
  const id = store.sessions.create({ target: 'ssh://box1', plan: {}, command: 'x' }, () => [{ kernelLabel: 'A', bootIndex: 1, runLabel: 'A-1' }]);
  store.close();
  const raw = new Database(path);
  // pid 2^22 + 1 is above the kernel's pid_max limit: no such process
  raw.prepare('UPDATE sessions SET owner = ? WHERE id = ?').run((raw.prepare("SELECT owner FROM sessions").pluck().get() as string).replace(/:\d+$/, ':4194305'), id);
  raw.close();
  const again = Store.open(path);
  assert.equal(again.sessions.get(id)!.status, 'interrupted');
  assert.equal(again.sessions.get(id)!.live, false);
  again.sessions.claim(id);
  assert.equal(again.sessions.get(id)!.status, 'running');
  assert.equal(again.sessions.get(id)!.live, true);
  again.sessions.finish(id, 'complete', null);
  assert.equal(again.sessions.list()[0]!.status, 'complete');
  again.close();
});

test('a session record whose stored plan is not JSON is told naming the database and the session, not as an internal error', () => {
  const path = join(tempDir(), 'damaged.db');
  Store.open(path).close();
  const raw = new Database(path);
  raw.prepare("INSERT INTO sessions (target, status, plan_json, created_at, command, owner) VALUES ('ssh://box', 'failed', '{not json', '2026-12-02T00:00:00Z', 'hintlab session', 'x')").run();
  raw.close();
  const s = Store.open(path);
  try {
    assert.throws(() => s.sessions.list(), (err: Error) => {
      assert.equal(err.constructor.name, 'UserError');
      assert.match(err.message, new RegExp(`^results database ${path}: session #1 is damaged: its plan_json is not JSON \\(`));
      return true;
    });
  } finally {
    s.close();
  }
});

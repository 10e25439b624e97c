/**
 * What `hintlab runs` prints of a real store holding hand-built runs, as
 * snapshots: the table of runs and the versioned JSON list. Times the store
 * writes itself and the temporary database's path are masked (same width),
 * so only the reporters' bytes are compared.
 */
import { test } from 'node:test';
import { join } from 'node:path';
import { Store } from '../../src/store/store.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { hostEnvironment, makeRun, storeRun } from '../compare/fixtures.ts';
import { assertSnapshot } from './snapshot.ts';

function database(): string {
  const db = join(tempDir(), 'lab.db');
  const store = Store.open(db);
  try {
    storeRun(store, makeRun({ id: 1, label: 'base', values: { getppid: [61, 62, 60], sched_yield: [190, 191] } }));
    storeRun(store, makeRun({ id: 2, label: null, kind: 'vm', unit: 'instructions/call', environment: hostEnvironment({ release: '6.12.9-hintlab-b' }), values: { getppid: [405, 405] } }));
    storeRun(store, makeRun({ id: 3, label: 'stress', kind: 'macro', unit: 'bogo-ops/s', values: { 'yield@1': [1000] } }), 'failed');
  } finally {
    store.close();
  }
  return db;
}

/** Store-written times and the temporary path, replaced by placeholders of the same width. */
function masked(text: string, db: string): string {
  return text
    .split(db).join('<db>')
    .replace(/\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d{3}Z)?/g, (m) => (m.length === 19 ? 'YYYY-MM-DD hh:mm:ss' : 'YYYY-MM-DDThh:mm:ss.sssZ'));
}

test('runs lists every stored run with its label, kind, kernel, start, rounds, unit and status', async () => {
  const db = database();
  const r = await runCli(['runs', '--db', db]);
  assertSnapshot('runs-list', masked(r.stdout, db));
});

test('runs --json lists the same runs as a versioned document', async () => {
  const db = database();
  const r = await runCli(['runs', '--json', '--db', db]);
  assertSnapshot('runs-list-json', masked(r.stdout, db));
});

test('runs on an empty store says there is none and how to start one', async () => {
  const db = join(tempDir(), 'empty.db');
  Store.open(db).close();
  const r = await runCli(['runs', '--db', db]);
  assertSnapshot('runs-list-empty', masked(r.stdout, db));
});

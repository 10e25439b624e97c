/**
 * Several hintlab processes started at once on one new database (a script
 * running bench in parallel): every one opens it, whichever creates the
 * schema, and the schema is created once.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { SCHEMA_VERSION } from '../../src/store/schema.ts';
import { tempDir } from '../helpers/cli.ts';

const STORE = new URL('../../src/store/store.ts', import.meta.url).href;
const SQLITE = new URL('../../src/store/sqlite.ts', import.meta.url).href;

/**
 * A process that loads the store (and SQLite's addon), says `ready`, then
 * opens each path that arrives on its stdin and stores a run in it. The
 * processes of one try get the path at the same instant, however long
 * each took to start.
 */
const OPENER = `
const { Store } = await import(${JSON.stringify(STORE)});
(await import(${JSON.stringify(SQLITE)})).sqlite();
const { createInterface } = await import('node:readline');
const params = { subjects: [], ops: 1, warmups: 0, rounds: 1, cpu: 0, subjectParams: {}, extra: {} };
process.stdout.write('ready\\n');
createInterface({ input: process.stdin }).on('line', (path) => {
  try {
    const store = Store.open(path);
    const id = store.createRun({ label: 'p' + process.pid, kind: 'bench', unit: 'ns/call', replicateUnit: 'process', command: 'hintlab bench', hintlabVersion: 't', params, environment: {} });
    store.finishRun(id, 'complete');
    store.close();
    process.stdout.write('opened\\n');
  } catch (err) {
    process.stdout.write('failed: ' + err.message.replace(/\\n/g, ' | ') + '\\n');
  }
});
`;

interface Opener {
  child: ChildProcess;
  ready: Promise<void>;
  /** The answer to the next path. */
  next(): Promise<string>;
}

function opener(): Opener {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', OPENER], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting: ((line: string) => void)[] = [];
  const said: string[] = [];
  let readyDone: () => void = () => {};
  const ready = new Promise<void>((r) => (readyDone = r));
  createInterface({ input: child.stdout }).on('line', (l) => {
    if (l === 'ready') { readyDone(); return; }
    const w = waiting.shift();
    if (w) w(l);
    else said.push(l);
  });
  child.on('close', (code) => {
    readyDone();
    for (const w of waiting.splice(0)) w(`exited ${code} without a word`);
  });
  return { child, ready, next: () => (said.length ? Promise.resolve(said.shift()!) : new Promise((r) => waiting.push(r))) };
}

test('six processes creating one new database at once all open it, five times over; the schema is made once', async (t) => {
  const procs = Array.from({ length: 6 }, () => opener());
  t.after(() => procs.forEach((p) => p.child.stdin!.end()));
  await Promise.all(procs.map((p) => p.ready));
  const dir = tempDir();
  for (let attempt = 0; attempt < 5; attempt++) {
    const path = join(dir, `new-${attempt}.db`);
    const answers = procs.map((p) => p.next());
    for (const p of procs) p.child.stdin!.write(`${path}\n`);
    const said = await Promise.all(answers);
    assert.deepEqual(said, Array(6).fill('opened'), `try ${attempt + 1}: ${said.join('\n')}`);
    const db = new Database(path, { readonly: true });
    assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM runs').get() as { n: number }).n, 6, 'every process stored its run');
    db.close();
  }
});

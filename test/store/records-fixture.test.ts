/**
 * Old databases keep loading: test/fixtures/records/records.sql holds one
 * record of every kind hintlab stores (bench plain and in each A/B design,
 * vm, vm --cost, LAVA, macro, vm --macro, a session, a trial), written by
 * an earlier hintlab. What `runs`, `compare` and `report` print for it is
 * kept in records.snapshot.txt; HINTLAB_UPDATE_SNAPSHOTS=1 rewrites it.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { CliIO } from '../../src/cli/io.ts';
import { run } from '../../src/cli/main.ts';
import { tempDir } from '../helpers/cli.ts';

const FIXTURE = new URL('../fixtures/records/records.sql', import.meta.url);
const SNAPSHOT = new URL('../fixtures/records/records.snapshot.txt', import.meta.url);

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

/** The fixture as a database file of its own. */
function fixtureDb(): string {
  const path = join(dir, 'records.db');
  const db = new Database(path);
  db.exec(readFileSync(FIXTURE, 'utf8'));
  db.close();
  return path;
}

/** The commands whose output is kept: every run listed with its records, and each A/B pair compared and reported. */
const COMMANDS: string[][] = [
  ['runs', '--verbose'],
  ...[['2', '3'], ['4', '5'], ['6', '7'], ['8', '9'], ['vm-A-1', 'vm-B-1', 'vm-A-2'], ['cost-A-1', 'cost-B-1'], ['lava-A-1', 'lava-B-1', 'lava-A-2'], ['macro-A', 'macro-B'], ['vmm-A-1', 'vmm-B-1', 'vmm-A-2'], ['sess-A-1,sess-A-2', 'sess-B-1']].flatMap((refs) => [
    ['compare', ...refs],
    ['report', ...refs],
  ]),
  ['report', '4', '5', '--format', 'json'],
  ['report', 'sess-A-1,sess-A-2', 'sess-B-1', '--format', 'json'],
  ['compare', 'cost-A-1', 'cost-B-1', '--metric', 'all'],
  ['runs', '1', '--json'],
];

/** The CLI in-process, from one fixed directory and home, so reproduce lines read alike wherever the test runs. */
async function hintlab(argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const io: CliIO = { stdout: (t) => void (out += t), stderr: (t) => void (out += `# stderr: ${t}`), isTTY: false, env: { HOME: '/home/dev' }, cwd: '/home/dev/linux' };
  const code = await run(argv, io);
  return { code, out };
}

test('a database of every kind of stored record loads, and runs, compare and report print for it what they printed when it was written', async () => {
  const db = fixtureDb();
  const parts: string[] = [];
  for (const argv of COMMANDS) {
    const r = await hintlab([...argv, '--db', db]);
    parts.push(`$ hintlab ${argv.join(' ')}\n# exit ${r.code}\n${r.out}`);
  }
  // the database's path is this test's own, and a JSON report says when it was written
  const text = parts.join('\n').replaceAll(db, '<db>').replace(/"generatedAt": "[^"]+"/g, '"generatedAt": "<now>"');
  if (process.env.HINTLAB_UPDATE_SNAPSHOTS === '1') writeFileSync(SNAPSHOT, text);
  assert.equal(text, readFileSync(SNAPSHOT, 'utf8'));
  assert.match(text, /\$ hintlab compare 4 5\n# exit 0\n/, 'the duet pair compares');
});

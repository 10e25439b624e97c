/**
 * gcov counts that need care, on real `gcc --coverage -O2` profiles run with
 * known inputs (expected counts follow from each fixture's header comment):
 * an `if` whose condition calls an inlined function, and the rows the
 * skipped table lists (or must not list).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { hintlab, markerLine } from './helpers.ts';

const FIXTURES = new URL('./fixtures/userspace/', import.meta.url).pathname;
const RUNS = 100_000;

let dir = '';

/** Build `name`.c, run it with RUNS, and return the path of its gcov JSON. */
function profile(name: string, gcovFlags: string[]): string {
  const src = join(dir, name);
  mkdirSync(src);
  copyFileSync(join(FIXTURES, `${name}.c`), join(src, `${name}.c`));
  execFileSync('gcc', ['--coverage', '-O2', '-o', name, `${name}.c`], { cwd: src });
  execFileSync(join(src, name), [String(RUNS)], { cwd: src });
  execFileSync('gcov', [...gcovFlags, `${name}.c`], { cwd: src, stdio: 'ignore' });
  return join(src, `${name}.gcov.json.gz`);
}

const lineOf = (name: string, marker: string): number => markerLine(readFileSync(join(FIXTURES, `${name}.c`), 'utf8'), marker);

interface Row {
  line: number;
  executions: number;
  thenCount: number | null;
  confidence: string;
  verdict: { kind: string; reason?: string };
}

async function hints(json: string, extra: string[]): Promise<{ rows: Row[]; table: string }> {
  const args = ['hints', `w=${json}`, '--src', join(json, '..'), ...extra];
  const j = await hintlab([...args, '--format', 'json']);
  assert.equal(j.code, 0, j.stderr);
  const t = await hintlab(args);
  assert.equal(t.code, 0, t.stderr);
  return { rows: (JSON.parse(j.stdout) as { rows: Row[] }).rows, table: t.stdout };
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'hintlab-gcov-counts-'));
});

after(() => rmSync(dir, { recursive: true, force: true }));

describe('an if whose condition calls an inlined function', () => {
  const C = lineOf('inlined', 'C');
  let json = '';
  before(() => {
    json = profile('inlined', ['-j', '-b']);
  });

  test("gcov's own count for the if line is overstated (the situation the fixture reproduces)", () => {
    const doc = JSON.parse(gunzipSync(readFileSync(json)).toString('utf8')) as { files: { lines: { line_number: number; count: number }[] }[] };
    const entries = doc.files.flatMap((f) => f.lines).filter((l) => l.line_number === C);
    assert.equal(entries.length, 1);
    assert.ok((entries[0]?.count ?? 0) > RUNS, `gcov counted line ${C} ${entries[0]?.count} times`);
  });

  test('executions are the times the if ran, and the then-branch count is exact', async () => {
    const { rows } = await hints(json, ['--min-hits', '1']);
    const row = rows.find((x) => x.line === C);
    assert.ok(row, `no row for line ${C}`);
    assert.equal(row.executions, RUNS);
    assert.equal(row.thenCount, 2 * (RUNS / 1000));
    assert.equal(row.confidence, 'lines');
  });
});

describe('skipped rows', () => {
  let json = '';
  before(() => {
    json = profile('rows', ['-j']);
  });

  test('an if that ran without a direction shows confidence none and its workload', async () => {
    const { rows, table } = await hints(json, []);
    const U = lineOf('rows', 'U');
    const row = rows.find((x) => x.line === U);
    assert.deepEqual(
      row && [row.executions, row.thenCount, row.confidence, row.verdict.reason],
      [RUNS, null, 'none', 'direction-unknown'],
    );
    const cells = table.split('\n').find((l) => l.startsWith(`rows.c:${U} `))?.trim().split(/\s+/);
    assert.deepEqual(cells, [`rows.c:${U}`, 'main', String(RUNS), '-', 'skip:', 'direction-unknown', 'none', `w:${RUNS}?`]);
  });

  test('parse errors are listed only when they ran at least --min-hits times', async () => {
    const { rows, table } = await hints(json, []);
    const parseErrors = rows.filter((r) => r.verdict.reason === 'parse-error').map((r) => [r.line, r.executions]);
    assert.deepEqual(parseErrors, [[lineOf('rows', 'PH'), RUNS]]);
    assert.ok(!table.includes(`rows.c:${lineOf('rows', 'P0')} `), table);
    assert.ok(!table.includes(`rows.c:${lineOf('rows', 'PL')} `), table);
  });
});

/**
 * End to end on a real user-space profile: the fixture is built with
 * `gcc --coverage -O2`, run with a known input, and `gcov -j -b` writes the
 * JSON that `hintlab hints` reads. Expected counts follow from the
 * fixture's loop (see its header comment), not from hintlab.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { hintlab, markerLine } from './helpers.ts';

const FIXTURE = new URL('./fixtures/userspace/branches.c', import.meta.url).pathname;
const SOURCE = readFileSync(FIXTURE, 'utf8');
const line = (m: string): number => markerLine(SOURCE, m);

let dir = '';
let src = '';
let w1 = '';
let w2 = '';

/** Build, run with `args`, and move the resulting gcov JSON to `out`. */
function profile(args: string[], out: string): void {
  for (const f of readdirSync(src)) if (f.endsWith('.gcda')) rmSync(join(src, f));
  execFileSync(join(src, 'branches'), args, { cwd: src });
  execFileSync('gcov', ['-j', '-b', 'branches.c'], { cwd: src, stdio: 'ignore' });
  renameSync(join(src, 'branches.gcov.json.gz'), out);
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'hintlab-hints-'));
  src = join(dir, 'src');
  mkdirSync(src);
  copyFileSync(FIXTURE, join(src, 'branches.c'));
  execFileSync('gcc', ['--coverage', '-O2', '-c', '-o', 'branches.o', 'branches.c'], { cwd: src });
  execFileSync('gcc', ['--coverage', '-o', 'branches', 'branches.o'], { cwd: src });
  w1 = join(dir, 'w1.gcov.json.gz');
  w2 = join(dir, 'w2.gcov.json.gz');
  profile(['100000'], w1);
  profile(['2000000', '200'], w2);
});

after(() => rmSync(dir, { recursive: true, force: true }));

interface JsonRow {
  line: number;
  executions: number;
  thenCount: number;
  confidence: string;
  verdict: { kind: string; hint?: string; reason?: string; fix?: string | null; claimedShare?: number };
  evidence: { workload: string; executions: number }[];
}

async function jsonRows(args: string[]): Promise<JsonRow[]> {
  const r = await hintlab(['hints', ...args, '--src', src, '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout) as { format: string; version: number; rows: JsonRow[] };
  assert.equal(doc.format, 'hintlab-hints');
  assert.equal(doc.version, 1);
  return doc.rows;
}

function rowAt(rows: JsonRow[], marker: string): JsonRow | undefined {
  return rows.find((r) => r.line === line(marker));
}

describe('hints on a gcc --coverage -O2 user-space profile', () => {
  test('proposes exactly the hints the fixture was built for, hottest first', async () => {
    const rows = await jsonRows([`w1=${w1}`]);
    const proposals = rows.filter((r) => r.verdict.kind === 'propose').map((r) => [r.line, r.verdict.hint, r.executions, r.thenCount]);
    assert.deepEqual(proposals, [
      [line('A'), 'unlikely', 100000, 100],
      [line('M'), 'unlikely', 100000, 100],
      [line('H'), 'unlikely', 99900, 200],
      [line('E'), 'likely', 99900, 99400],
    ]);
  });

  test('GCC lays the bare-return branch A on the jump arc; flow past the if still reads it right', async () => {
    const doc = JSON.parse(gunzipSync(readFileSync(w1)).toString()) as {
      files: { file: string; lines: { line_number: number; branches: { count: number; fallthrough: boolean }[] }[] }[];
    };
    const a = doc.files.find((f) => f.file === 'branches.c')?.lines.find((l) => l.line_number === line('A'));
    // The then-branch ran 100 times; gcov's fall-through arc holds the other 99900.
    assert.deepEqual(
      a?.branches.map((b) => [b.fallthrough, b.count]),
      [
        [true, 99900],
        [false, 100],
      ],
    );
    const row = rowAt(await jsonRows([`w1=${w1}`]), 'A');
    assert.equal(row?.thenCount, 100);
    assert.equal(row.confidence, 'flow');
  });

  test('a then-branch on the if line is never proposed from the arcs: skipped, the arcs quoted', async () => {
    const row = rowAt(await jsonRows([`w1=${w1}`]), 'F');
    assert.deepEqual([row?.verdict.kind, row?.verdict.reason, row?.confidence, row?.thenCount], ['skip', 'direction-unknown', 'none', null]);
    assert.match((row?.verdict as { detail?: string }).detail ?? '', /arcs, not a direction: fall-through \d+, jump \d+/);
  });

  test('flags likely() on a condition true 0.2 % of the time, and leaves a right unlikely() alone', async () => {
    const rows = await jsonRows([`w1=${w1}`]);
    const b = rowAt(rows, 'B');
    assert.equal(b?.verdict.kind, 'contradicted');
    assert.equal(b.verdict.fix, 'unlikely');
    assert.equal(b.verdict.claimedShare, 200 / 99900);
    const c = rowAt(rows, 'C');
    assert.deepEqual([c?.verdict.kind, c?.verdict.reason, c?.thenCount], ['skip', 'already-annotated', 0]);
  });

  test('balanced branches and branches under --min-hits are not listed', async () => {
    const rows = await jsonRows([`w1=${w1}`]);
    for (const m of ['D', 'G', 'R']) assert.equal(rowAt(rows, m), undefined, m);
    const lowered = rowAt(await jsonRows([`w1=${w1}`, '--min-hits', '50']), 'R');
    assert.deepEqual([lowered?.verdict.hint, lowered?.executions, lowered?.thenCount], ['unlikely', 100, 0]);
  });

  test('with two workloads, proposes only what both bias the same way', async () => {
    const rows = await jsonRows([`w1=${w1}`, `w2=${w2}`]);
    // G: 5 % in w1, never in w2's two million runs: biased overall, not in w1.
    const g = rowAt(rows, 'G');
    assert.deepEqual([g?.verdict.kind, g?.verdict.reason], ['skip', 'workloads-disagree']);
    const e = rowAt(rows, 'E');
    assert.equal(e?.verdict.hint, 'likely');
    assert.deepEqual(e.evidence.map((x) => [x.workload, x.executions]), [
      ['w1', 99900],
      ['w2', 2000000],
    ]);
  });

  test('the patch changes only condition text and passes git apply --check', async () => {
    const r = await hintlab(['hints', w1, '--src', src, '--format', 'patch']);
    assert.equal(r.code, 0, r.stderr);
    const removed = r.stdout.split('\n').filter((l) => l.startsWith('-') && !l.startsWith('---'));
    const added = r.stdout.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++'));
    assert.deepEqual(added, [
      '+\tif (unlikely(v % 1000 == 999)) /* A */',
      '+\tif (unlikely(v % 1000 == 998 || /* H */',
      '+\t    v % 1000 == 997))',
      '+\tif (unlikely(v % 500 == 7)) /* B */',
      '+\tif (likely(v % 200 != 13)) /* E */',
      '+\t\tif (unlikely(i % 1000 == 0)) /* M */',
    ]);
    assert.equal(removed.length, added.length);
    const patch = join(dir, 'hints.diff');
    writeFileSync(patch, r.stdout);
    execFileSync('git', ['apply', '--check', patch], { cwd: src });
  });

  test('--apply writes what git apply would, and refuses a file edited after profiling', async () => {
    const copy = join(dir, 'apply');
    mkdirSync(copy, { recursive: true });
    copyFileSync(join(src, 'branches.c'), join(copy, 'branches.c'));
    const old = new Date('2020-01-01T00:00:00Z');
    utimesSync(join(copy, 'branches.c'), old, old);
    const viaGit = join(dir, 'viagit');
    mkdirSync(viaGit, { recursive: true });
    copyFileSync(join(src, 'branches.c'), join(viaGit, 'branches.c'));
    execFileSync('git', ['apply', join(dir, 'hints.diff')], { cwd: viaGit });

    const r = await hintlab(['hints', w1, '--src', copy, '--apply']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(join(copy, 'branches.c'), 'utf8'), readFileSync(join(viaGit, 'branches.c'), 'utf8'));
    assert.deepEqual(readdirSync(copy), ['branches.c']);

    // Edited after the profile was written: refused, file untouched.
    writeFileSync(join(copy, 'branches.c'), SOURCE);
    const refused = await hintlab(['hints', w1, '--src', copy, '--apply']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /branches\.c was modified after the newest profile file/);
    assert.equal(readFileSync(join(copy, 'branches.c'), 'utf8'), SOURCE);
  });
});

describe('hints refuses bad input, naming the file', () => {
  test('malformed gcov JSON', async () => {
    const bad = join(dir, 'bad.gcov.json');
    writeFileSync(bad, '{"format_version": "1", "files": [{"file": "branches.c", "lines": [{"line_number": 0, "count": 1}]}]}');
    const r = await hintlab(['hints', bad, '--src', src]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /bad\.gcov\.json: not gcov JSON \(files\[0\]\.lines\[0\]: "line_number" must be a positive integer\)/);
  });

  test('truncated .gz', async () => {
    const cut = join(dir, 'cut.gcov.json.gz');
    const bytes = readFileSync(w1);
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const r = await hintlab(['hints', cut, '--src', src]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /cut\.gcov\.json\.gz: corrupt or truncated gzip data/);
  });

  test('a source that is not the profiled one', async () => {
    const shifted = join(dir, 'shifted');
    mkdirSync(shifted, { recursive: true });
    writeFileSync(join(shifted, 'branches.c'), `/* one more line */\n${SOURCE}`);
    const r = await hintlab(['hints', w1, '--src', shifted]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /source branches\.c does not match the profile .*w1\.gcov\.json\.gz: line \d+ has a count \(\d+\) but is blank or a comment there/);

    writeFileSync(join(shifted, 'branches.c'), SOURCE.split('\n').slice(0, 40).join('\n'));
    const short = await hintlab(['hints', w1, '--src', shifted]);
    assert.equal(short.code, 1);
    assert.match(short.stderr, /source branches\.c does not match the profile .*: line \d+ has a count \(\d+\) but is past its end \(40 lines\)/);
  });
});

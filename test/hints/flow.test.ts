/**
 * Flow conservation on a real `gcc --coverage -O2` profile: exiting
 * then-branches without a line count of their own get their count from the
 * statements around them, and the shapes where that count would be wrong
 * (a label or a loop head after the `if`) are skipped with the reason.
 * Expected counts follow from fixtures/userspace/flow.c's header comment.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { hintlab, markerLine, rowSummary as summary, type JsonRow as Row } from './helpers.ts';

const FIXTURE = new URL('./fixtures/userspace/flow.c', import.meta.url).pathname;
const SOURCE = readFileSync(FIXTURE, 'utf8');
const N = 100_000;
const line = (m: string): number => markerLine(SOURCE, m);

let dir = '';
let json = '';
let noArcs = '';

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'hintlab-flow-'));
  copyFileSync(FIXTURE, join(dir, 'flow.c'));
  execFileSync('gcc', ['--coverage', '-O2', '-o', 'flow', 'flow.c'], { cwd: dir });
  execFileSync(join(dir, 'flow'), [String(N)], { cwd: dir, stdio: 'ignore' });
  execFileSync('gcov', ['-j', 'flow.c'], { cwd: dir, stdio: 'ignore' });
  noArcs = join(dir, 'no-arcs.gcov.json.gz');
  renameSync(join(dir, 'flow.gcov.json.gz'), noArcs);
  execFileSync('gcov', ['-j', '-b', 'flow.c'], { cwd: dir, stdio: 'ignore' });
  json = join(dir, 'flow.gcov.json.gz');
});

after(() => rmSync(dir, { recursive: true, force: true }));

async function rows(extra: string[] = [], profile = json): Promise<Row[]> {
  const r = await hintlab(['hints', `w=${profile}`, '--src', dir, '--format', 'json', ...extra]);
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { rows: Row[] }).rows;
}

const at = (all: Row[], marker: string): Row | undefined => all.find((r) => r.line === line(marker));

describe('flow conservation past an exiting then-branch', () => {
  test('the exiting branches have no line count of their own in this profile', () => {
    const doc = JSON.parse(gunzipSync(readFileSync(json)).toString('utf8')) as { files: { lines: { line_number: number }[] }[] };
    const counted = new Set(doc.files.flatMap((f) => f.lines.map((l) => l.line_number)));
    for (const m of ['RET', 'BRK1', 'ELSE', 'LBL', 'LOOP']) assert.ok(!counted.has(line(m) + 1), `${m}: line ${line(m) + 1} has a count`);
  });

  test('a return merged into the shared return block: unlikely, from the statement after the if', async () => {
    const r = at(await rows(), 'RET');
    assert.deepEqual(summary(r), [N, N / 1000, 'flow', 'unlikely']);
    assert.deepEqual(r?.methods, [`w: then = line ${line('RET')} - flow past the if (line ${line('RET') + 2} = ${N - N / 1000})`]);
  });

  test('a goto to an error label: read from the goto line when gcc counts it, from flow when the goto shares the if line', async () => {
    const all = await rows();
    assert.deepEqual(summary(at(all, 'GOTO')), [N, N / 500, 'lines', 'unlikely']);
    assert.deepEqual(summary(at(all, 'GOTO1')), [N - N / 500, N / 1000, 'flow', 'unlikely']);
  });

  test('a break out of a loop: flow into the rest of the loop body', async () => {
    const all = await rows(['--min-bias', '0.75']);
    assert.deepEqual(summary(at(all, 'BRK')), [5 * N, N, 'flow', 'unlikely']);
    assert.deepEqual(summary(at(all, 'BRK1')), [N, N / 1000, 'flow', 'unlikely']);
  });

  test("an if ending an else-branch: the successor's count less the then-arm's", async () => {
    const r = at(await rows(), 'ELSE');
    assert.deepEqual(summary(r), [N / 2, N / 500, 'flow', 'unlikely']);
    assert.match(r?.methods[0] ?? '', /flow past the if \(line \d+ - line \d+ = 49800\)/);
  });

  test('a label after the if: skipped, never guessed from the arcs', async () => {
    const r = at(await rows(), 'LBL');
    assert.deepEqual(summary(r), [N, null, 'none', 'direction-unknown']);
    assert.match(r?.verdict.detail ?? '', /the label at line \d+ after it has other predecessors \(gotos\)/);
  });

  test('the last statement of a loop body (the loop head follows): skipped', async () => {
    const r = at(await rows(), 'LOOP');
    assert.deepEqual(summary(r), [3 * N - 300, null, 'none', 'direction-unknown']);
    assert.match(r?.verdict.detail ?? '', /the loop head at line \d+ follows it/);
  });

  test('a return after the if (gcc may share its line with other returns): flow only when the arcs confirm it', async () => {
    assert.deepEqual(summary(at(await rows(), 'RETN')), [N, N / 1000, 'flow', 'unlikely']);
    const r = at(await rows([], noArcs), 'RETN');
    assert.deepEqual(summary(r), [N, null, 'none', 'direction-unknown']);
    assert.match(r?.verdict.detail ?? '', /counts a return line, which gcc may share with other returns, and line \d+'s arcs cannot confirm it/);
  });

  test('a successor without a line count passes the flow on to the statement after it', async () => {
    const r = at(await rows(), 'NOCNT');
    assert.deepEqual(summary(r), [N, N / 1000, 'flow', 'unlikely']);
    assert.deepEqual(r?.methods, [`w: then = line ${line('NOCNT')} - flow past the if (line ${line('NOCNT') + 3} = ${N - N / 1000})`]);
  });

  test('every proposal anywhere in the fixture rests on line counts or flow, never on arcs alone', async () => {
    const all = await rows(['--min-hits', '1', '--min-bias', '0.51']);
    const proposed = all.filter((r) => r.verdict.kind === 'propose');
    assert.ok(proposed.length >= 5, `${proposed.length} proposals`);
    for (const r of proposed) assert.ok(r.confidence === 'lines' || r.confidence === 'flow', `line ${r.line} proposed on ${r.confidence}`);
  });
});

/**
 * `hintlab report` end to end, in-process, over a real SQLite store holding
 * hand-built runs: the same flags and refusals as `hintlab compare`, every
 * format, and -o writing the file atomically.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Store } from '../../src/store/store.ts';
import { hintlabIn } from './cli-helpers.ts';
import { hostEnvironment, makeRun, storeRun } from '../compare/fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'hintlab-report-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const db = join(dir, 'results.db');

// A and A2: 100 ns/call with a small spread; B: exactly 5 ns more in every round.
const base = [99.6, 100.2, 99.9, 100.4, 99.8, 100.1, 100.0, 99.7, 100.3, 100.0];
{
  const store = Store.open(db);
  storeRun(store, makeRun({ id: 1, label: 'base', values: { getppid: base } }));
  storeRun(store, makeRun({ id: 2, label: 'patched', values: { getppid: base.map((v) => v + 5) } }));
  storeRun(store, makeRun({ id: 3, label: 'base2', values: { getppid: base.map((v) => v + 0.02) } })); // A2 a hair above A: two runs never agree exactly, and the run-to-run term needs their difference
  storeRun(store, makeRun({ id: 4, label: 'elsewhere', values: { getppid: base }, environment: hostEnvironment({ cpu: 'AMD EPYC 7B13' }) }));
  store.close();
}

const hintlab = hintlabIn(db, dir);

test('report --format lkml prints the 72-column block with the A/B/A verdict', async () => {
  const { code, out, err } = await hintlab('report', 'base', 'patched', 'base2', '--format', 'lkml');
  assert.equal(err, '');
  assert.equal(code, 0);
  // 100.0 -> 105.0 is +5.0 ns, +5.0 %.
  assert.match(out, /^getppid +100\.0 +105\.0 +\+5\.0 % +\S+ to \S+ +slower$/m);
  assert.match(out.replace(/\n\s*/g, ' '), /Means in ns\/call \(wall clock\), B vs A\+A2, 10 processes per run x 100000 calls:/);
  // The runs came from $HINTLAB_DB, a file in the report's directory: every reproduce line names it, relative to that directory.
  assert.ok(out.includes('  hintlab compare base patched base2 --threshold 1 --alpha 0.05 \\\n      --correction holm --db results.db\n'), out);
  assert.ok(out.includes('  hintlab bench --label run1 --db results.db\n'), out);
  for (const line of out.split('\n')) assert.ok(line.length <= 72, line);
});

test('report -o writes the file atomically and says where it went', async () => {
  const file = join(dir, 'report.html');
  const { code, out, err } = await hintlab('report', 'base', 'patched', '--format', 'html', '-o', file);
  assert.equal(code, 0);
  assert.equal(out, '');
  assert.equal(err, `wrote html report to ${file}\n`);
  assert.match(readFileSync(file, 'utf8'), /^<!DOCTYPE html>/);
  assert.deepEqual(readdirSync(dir).filter((f) => f.includes('.tmp')), []);
});

test('every format renders the same comparison', async () => {
  for (const format of ['text', 'md', 'json']) {
    const { code, out } = await hintlab('report', 'base', 'patched', '--format', format);
    assert.equal(code, 0, format);
    assert.match(out, /getppid/, format);
  }
  const json = JSON.parse((await hintlab('report', '1', '2', '--format', 'json', '--threshold', '2%')).out);
  assert.equal(json.comparison.options.thresholdPct, 2);
});

test('an unknown format is a usage error naming the flag and the choices', async () => {
  const { code, err } = await hintlab('report', 'base', 'patched', '--format', 'pdf');
  assert.equal(code, 2);
  assert.match(err, /--format must be one of text, lkml, md, json, html; got 'pdf'/);
});

test('runs from different machines are refused as by compare, unless --allow-mismatch', async () => {
  const refused = await hintlab('report', 'base', 'elsewhere', '--format', 'md');
  assert.equal(refused.code, 1);
  assert.match(refused.err, /cpu\.model/);
  assert.equal(refused.err, (await hintlab('compare', 'base', 'elsewhere')).err);
  const allowed = await hintlab('report', 'base', 'elsewhere', '--format', 'lkml', '--allow-mismatch');
  assert.equal(allowed.code, 0);
  assert.match(allowed.out.replace(/\n\s*/g, ' '), /Mismatch allowed: cpu\.model: A Intel\(R\) Xeon\(R\) CPU @ 2\.20GHz, B AMD EPYC 7B13/);
});

test('-o into a directory that does not exist is a usage error naming the file, and leaves nothing behind', async () => {
  const file = join(dir, 'no-such-dir', 'r.md');
  const { code, err } = await hintlab('report', 'base', 'patched', '--format', 'md', '-o', file);
  assert.equal(code, 2);
  assert.match(err, new RegExp(`cannot write ${file}`));
  assert.equal(existsSync(join(dir, 'no-such-dir')), false);
});

/** `hintlab compare` end to end, in-process, against a real SQLite results file filled through the Store API. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Store } from '../../src/store/store.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { hostEnvironment, makeRun, storeRun } from './fixtures.ts';

const A = [166.0, 166.4, 165.8, 166.2, 166.1, 166.5, 165.9, 166.3]; // mean 166.15; x 1.34 = 222.64
const shifted = (pct: number) => A.map((x) => x * (1 + pct / 100));

describe('hintlab compare', () => {
  let dir = '';
  let db = '';
  before(() => {
    dir = tempDir();
    db = join(dir, 'results.db');
    const store = Store.open(db);
    storeRun(store, makeRun({ id: 1, label: 'plain', values: { getppid: A, getpid: A } }));
    storeRun(store, makeRun({ id: 2, label: 'seccomp', values: { getppid: shifted(34), getpid: shifted(0.05) }, environment: hostEnvironment({ injectSeccomp: 16 }) }));
    storeRun(store, makeRun({ id: 3, label: 'plain-again', values: { getppid: shifted(0.02), getpid: A } }));
    storeRun(store, makeRun({ id: 0, label: 'other-cpu', values: { getppid: A }, environment: hostEnvironment({ cpu: 'AMD EPYC 7B13' }) }));
    storeRun(store, makeRun({ id: 0, label: 'crashed', values: { getppid: A } }), 'failed');
    storeRun(store, makeRun({ id: 0, label: 'icount', unit: 'instructions/call', values: { getppid: A } }));
    store.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('compares runs named by label and by id, A/B/A, and prints the table', async () => {
    const r = await runCli(['compare', 'plain', '#2', '3', '--db', db]);
    assert.equal(r.stderr, '');
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^A {2}= run 1 'plain', bench, complete/);
    // The table prints the contrast the verdict used: B vs the midpoint of A and A2 (166.167), +33.99 %.
    assert.match(r.stdout, /\nsubject +A ± round CV +B ± round CV +A2 ± round CV +B vs A\+A2 +95 % CI +run-level t p/);
    assert.match(r.stdout, /\ngetppid {2}166\.2 ns ± 0\.\d\d % +222\.6 ns ± 0\.\d\d % +166\.2 ns ± 0\.\d\d % +\+56\.5 ns \(\+33\.99 %\).* slower\n/);
    assert.match(r.stdout, /\ngetpid .* no difference proven\n/);
    assert.match(r.stdout, /drift A2 vs A: \+0\.03 ns \(\+0\.02 %\).*: no difference proven/);
    assert.match(r.stdout, /\nregressions: getppid \(\+34\.00 %\)\n/);
    assert.match(r.stdout, /\ninjectSeccomp +off +16 +off +\(expected\)\n/);
  });

  it('takes the database from HINTLAB_DB when --db is absent', async () => {
    const r = await runCli(['compare', 'plain', 'seccomp'], { env: { ...process.env, HINTLAB_DB: db } });
    assert.equal(r.code, 0, r.stderr);
  });

  it('prints the comparison document with --json, with the flags applied', async () => {
    const r = await runCli(['compare', 'plain', 'seccomp', '--db', db, '--json', '--threshold', '0.5%', '--alpha', '0.01', '--detect', '0.5 %']);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { schema: number; options: Record<string, unknown>; regressions: string[] };
    assert.equal(doc.schema, 9);
    assert.equal(doc.options.correction, 'holm');
    assert.equal(doc.options.thresholdPct, 0.5);
    assert.equal(doc.options.alpha, 0.01);
    assert.equal(doc.options.confidenceLevel, 0.99);
    assert.equal(doc.options.detectPct, 0.5);
    assert.deepEqual(doc.regressions, ['getppid']);
  });

  it('leaves --control subjects out of the regressions and the geometric mean, and refuses an unknown one', async () => {
    const r = await runCli(['compare', 'plain', 'seccomp', '--db', db, '--control', 'getppid']);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /\nregressions:/);
    assert.match(r.stdout, /\ncontrols \(left out of the geometric mean and regressions\): getppid\n/);
    assert.match(r.stdout, /\ngeometric mean of B\/A over 1 subject: /);
    const bad = await runCli(['compare', 'plain', 'seccomp', '--db', db, '--control', 'getpgid']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--control getpgid: no such subject in both A and B; subjects compared: getppid, getpid/);
  });

  it('applies --correction none: each subject tested on its own, no family', async () => {
    const r = await runCli(['compare', 'plain', 'seccomp', '--db', db, '--json', '--correction', 'none']);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as {
      options: Record<string, unknown>;
      multipleComparisons: Record<string, unknown>;
      subjects: { change: { test: { pValue: number }; adjusted: { kind: string; pValue: number } } }[];
    };
    assert.equal(doc.options.correction, 'none');
    assert.deepEqual(doc.multipleComparisons, { correction: 'none', familySize: 2, driftFamilySize: null });
    for (const s of doc.subjects) assert.equal(s.change.adjusted.pValue, s.change.test.pValue);
  });

  it('rejects bad flag values naming the flag (exit 2)', async () => {
    const bad = [['--threshold', '-3'], ['--alpha', '2'], ['--detect', 'abc'], ['--resamples', '10'], ['--correction', 'bonferroni']] as const;
    for (const [flag, value] of bad) {
      const r = await runCli(['compare', 'plain', 'seccomp', '--db', db, flag, value]);
      assert.equal(r.code, 2, `${flag} ${value}`);
      assert.match(r.stderr, new RegExp(`^hintlab: ${flag} must be .*got '${value}'`));
    }
  });

  it('refuses a run on another CPU naming the field, and compares it with --allow-mismatch', async () => {
    const r = await runCli(['compare', 'plain', 'other-cpu', '--db', db]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /cpu\.model: A = 'Intel\(R\) Xeon\(R\) CPU @ 2\.20GHz', B = 'AMD EPYC 7B13'/);
    const ok = await runCli(['compare', 'plain', 'other-cpu', '--db', db, '--allow-mismatch']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /\ncpu\.model .* DIFFERS \(allowed by --allow-mismatch\)\n/);
  });

  it('refuses a failed run unless --allow-incomplete', async () => {
    const r = await runCli(['compare', 'plain', 'crashed', '--db', db]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /B \(run 5 'crashed'\) is failed \(probe exited with status 1\): .*--allow-incomplete/);
    const ok = await runCli(['compare', 'plain', 'crashed', '--db', db, '--allow-incomplete']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /caveat: incomplete-run/);
  });

  it('refuses runs in different units, and names a missing run', async () => {
    const units = await runCli(['compare', 'plain', 'icount', '--db', db, '--allow-mismatch']);
    assert.equal(units.code, 1);
    assert.match(units.stderr, /measures 'ns\/call' but B \(run 6 'icount'\) measures 'instructions\/call'/);
    // a reference to no run is a usage error in every command that takes one: exit 2
    for (const argv of [['compare', 'plain', 'nope'], ['report', 'plain', 'nope'], ['runs', 'nope'], ['export', 'nope']]) {
      const missing = await runCli([...argv, '--db', db]);
      assert.equal(missing.code, 2, `${argv.join(' ')}: ${missing.stderr}`);
      assert.match(missing.stderr, /no run with id or label 'nope'/);
    }
  });

  it('refuses a run compared with itself, by id or label, and an A2 that is A or B', async () => {
    const cases: [string[], RegExp][] = [
      [['1', '1'], /A '1' and B '1' are the same run \(#1\)/],
      [['plain', '#1'], /A 'plain' and B '#1' are the same run \(#1\)/],
      [['plain', 'seccomp', 'seccomp'], /B 'seccomp' and A2 'seccomp' are the same run \(#2\)/],
      [['plain', 'seccomp', '1'], /A 'plain' and A2 '1' are the same run \(#1\)/],
    ];
    for (const [runs, message] of cases) {
      for (const command of ['compare', 'report']) {
        const r = await runCli([command, ...runs, '--db', db]);
        assert.equal(r.code, 2, `${command} ${runs.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, message);
        assert.equal(r.stdout, '');
      }
    }
  });
});

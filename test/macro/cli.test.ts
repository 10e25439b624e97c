import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { run } from '../../src/cli/main.ts';
import type { CliIO } from '../../src/cli/io.ts';
import { fakeExecutorFromFile } from '../../src/macro/fake.ts';
import { Store } from '../../src/store/store.ts';
import { fillLeaving, mountTmpfs } from '../helpers/tmpfs.ts';

function io(dir: string) {
  const out = { stdout: '', stderr: '' };
  const cli: CliIO = {
    stdout: (t) => void (out.stdout += t),
    stderr: (t) => void (out.stderr += t),
    isTTY: false,
    env: { HOME: dir },
    cwd: dir,
  };
  return { cli, out };
}

/** The CLI with the scripted stress-ng read from `file`. */
function withFake(cli: CliIO, file: string): CliIO {
  return { ...cli, services: { stressNgExecutor: fakeExecutorFromFile(file) } };
}

function fakeFile(dir: string): string {
  const file = join(dir, 'fake.json');
  writeFileSync(file, JSON.stringify({ version: '0.15.06', stressors: ['fifo', 'yield'], values: { 'fifo@1': [1000, 1100], 'yield@1': [2000, 2000] } }));
  return file;
}

test('hintlab macro on the fake stress-ng prints each subject with mean and CV, and stores the run', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hintlab-cli-'));
  const db = join(dir, 'r.db');
  const { cli, out } = io(dir);
  const args = ['macro', '--stressor', 'fifo,yield', '--instances', '1', '--seconds', '1', '--cooldown', '0', '--repeats', '2', '--label', 'A', '--db', db];
  const code = await run(args, withFake(cli, fakeFile(dir)));
  assert.equal(code, 0, out.stderr);
  const lines = out.stdout.split('\n');
  // mean(1000, 1100) = 1050; sample stdev 70.71; CV 6.73 %.
  assert.match(lines.find((l) => l.startsWith('fifo@1'))!, /^fifo@1\s+1050\s+6\.73 %\s+1000\s+1100\s+2\s+525\.0$/);
  assert.match(lines.find((l) => l.startsWith('yield@1'))!, /^yield@1\s+2000\s+0\.00 %\s+2000\s+2000\s+2\s+1000$/);
  assert.match(out.stderr, /stress-ng 0\.15\.06: 2 stressors x instances 1 x 2 repeats of 1 s, 0 s cool-down: about 4s/);
  const store = Store.open(db);
  const stored = store.resolveRun('A');
  store.close();
  assert.equal(stored.kind, 'macro');
  assert.equal(stored.status, 'complete');
  assert.deepEqual(stored.rounds.map((r) => r.value), [1000, 2000, 1100, 2000]);
});

test('hintlab macro --set sched lists the stressors stress-ng lacks', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hintlab-cli-'));
  const { cli, out } = io(dir);
  const code = await run(['macro', '--set', 'sched', '--instances', '1', '--seconds', '1', '--cooldown', '0', '--repeats', '1', '--db', join(dir, 'r.db')], withFake(cli, fakeFile(dir)));
  assert.equal(code, 0, out.stderr);
  assert.match(out.stdout, /unavailable: cpu-sched \(not in stress-ng 0\.15\.06\), flipflop \(not in stress-ng 0\.15\.06\), futex/);
});

test('usage errors exit with status 2 and name the flag', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hintlab-cli-'));
  const cases: [string[], RegExp][] = [
    [['--stressor', 'fifoo'], /hintlab: --stressor fifoo: stress-ng 0\.15\.06 has no stressor 'fifoo'/],
    [['--stressor', 'fifo', '--instances', 'many'], /hintlab: --instances many: 'many' is neither a positive count nor 'all'/],
    [['--stressor', 'fifo', '--seconds', '0'], /--seconds must be an integer >= 1, got '0'/],
    [[], /name the stressors to run: --stressor NAME \(repeatable\) or --set sched/],
  ];
  for (const [extra, message] of cases) {
    const { cli, out } = io(dir);
    const code = await run(['macro', ...extra, '--db', join(dir, 'r.db')], withFake(cli, fakeFile(dir)));
    assert.equal(code, 2, `${extra.join(' ')}: ${out.stderr}`);
    assert.match(out.stderr, message);
  }
});

test('disk full while storing a macro round ends the run with the round, run and file system named', async (t) => {
  const fs = mountTmpfs(1024);
  if ('skip' in fs) { t.skip(fs.skip); return; }
  t.after(fs.unmount);
  const dir = mkdtempSync(join(tmpdir(), 'hintlab-cli-'));
  const db = join(fs.dir, 'r.db');
  Store.open(db).close();
  fillLeaving(fs.dir, 64);
  const repeats = 400;
  const file = join(dir, 'fake.json');
  writeFileSync(file, JSON.stringify({ version: '0.15.06', stressors: ['fifo'], values: { 'fifo@1': Array.from({ length: repeats }, (_, i) => 1000 + i) } }));
  const { cli, out } = io(dir);
  const code = await run(['macro', '--stressor', 'fifo', '--instances', '1', '--seconds', '1', '--cooldown', '0', '--repeats', String(repeats), '--label', 'full', '--db', db], withFake(cli, file));
  assert.equal(code, 1, out.stderr);
  assert.doesNotMatch(out.stderr, /internal error|SqliteError/);
  assert.match(out.stderr, new RegExp(`disk full while storing round \\d+ of run #1 \\(full\\): free space on ${fs.dir} \\(tmpfs\\)\\nrun #1 \\(full\\) keeps its \\d+ committed measured rounds`));
  const store = Store.openExisting(db);
  const kept = store.resolveRun('full').rounds.length;
  store.close();
  assert.ok(kept > 0 && kept < repeats, `${kept} rounds kept`);
});

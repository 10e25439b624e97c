/** Flags of issue-31 kind: decimals only for percentages, paired-only flags, -o's format, --quiet, runs --json, the help's defaults. */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_BLOCK_ROUNDS, DEFAULT_SECONDS_PER_PROFILE, PAIRED_WARMUPS } from '../../src/bench/budget.ts';
import { Store } from '../../src/store/store.ts';
import { makeRun, storeRun } from '../compare/fixtures.ts';
import type { Services } from '../../src/cli/io.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { requireAll, requireTool } from '../helpers/tools.ts';
import { miniBuild, miniPatch, miniTree, scriptedGuest, unusedProbe } from '../trial/fakes.ts';

const base = [99.6, 100.2, 99.9, 100.4, 99.8, 100.1, 100.0, 99.7, 100.3, 100.0];

/** A database with one A/B pair (runs 1 and 2). */
function pairDb(): string {
  const db = join(tempDir(), 'h.db');
  const store = Store.open(db);
  storeRun(store, makeRun({ id: 1, label: 'A', values: { getppid: base } }));
  storeRun(store, makeRun({ id: 2, label: 'B', values: { getppid: base.map((v) => v + 5) } }));
  store.close();
  return db;
}

test('a percentage is read as a plain decimal only: hex, exponents and words are refused naming the flag', async () => {
  const db = pairDb();
  for (const [flag, value] of [['--threshold', '0x10'], ['--threshold', '1e-9'], ['--detect', 'Infinity'], ['--threshold', '+2'], ['--detect', '2 %%']]) {
    const r = await runCli(['compare', 'A', 'B', '--db', db, flag!, value!]);
    assert.equal(r.code, 2, `${flag} ${value}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`${flag} must be a percentage .* written as a plain decimal, such as .*; got '${value!.replace('+', '\\+')}'`));
  }
  const ok = await runCli(['compare', 'A', 'B', '--db', db, '--threshold', '0.5 %', '--detect', '.5']);
  assert.equal(ok.code, 0, ok.stderr);
});

test('--precision and --seed are refused where nothing would read them: below 0.01 %, without a B side, with --design processes or abbaab, on a box, --seed with a duet', async () => {
  const db = join(tempDir(), 'h.db');
  const cases: [string[], RegExp][] = [
    [['--precision', '0.001', '--label-b', 'B', '--inject-seccomp-b', '64'], /--precision must be at least 0\.01 % \(compare prints changes to 0\.01 %\)/],
    [['--precision', '2%'], /--precision applies to an A\/B invocation \(duet or alternation\) only, and this run has no B side: add one/],
    [['--precision', '2%', '--label-b', 'B', '--design', 'processes'], /--precision applies to duet and alternation only, and --design processes measures whole probe processes .*: drop --precision/],
    [['--precision', '2%', '--label-b', 'B', '--target', 'ssh://box'], /--precision applies to duet and alternation only, and a run on a box \(--target\)/],
    [['--time', '5', '--design', 'processes', '--label-b', 'B'], /--time applies to duet and alternation only/],
    [['--time', '5', '--design', 'abbaab', '--label-b', 'B'], /--time applies to duet and alternation only, and --design abbaab measures whole probe processes \(--rounds over --processes\): drop --time/],
    [['--block-rounds', '3'], /--block-rounds applies to an A\/B invocation/],
    [['--seed', '3'], /--seed applies to an A\/B invocation \(alternation\) only, and this run has no B side/],
    [['--seed', '3', '--label-b', 'B', '--design', 'processes'], /--seed applies to the alternation \(its random ABBA order\) only, and --design processes measures whole probe processes .*: drop --seed/],
    [['--seed', '3', '--label-b', 'B', '--target', 'ssh://box'], /--seed applies to the alternation \(its random ABBA order\) only, and a run on a box \(--target\)/],
    [['--seed', '3', '--label-b', 'B', '--inject-seccomp-b', '64', '--design', 'duet'], /^hintlab: --seed applies to the alternation \(its random ABBA order\) only, and --design duet runs A and B at once, in no random order: drop --seed, or use --design alternation\n$/],
  ];
  for (const [argv, message] of cases) {
    const r = await runCli(['bench', '--db', db, '--profile', 'getppid', ...argv]);
    assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
  const list = await runCli(['runs', '--db', db]);
  assert.match(list.stderr, /no results database at/, 'nothing was started');
});

test('report -o takes the format from the extension, and refuses an extension it cannot read or a --format that contradicts it', async () => {
  const db = pairDb();
  const dir = tempDir();
  const cases: [file: string, format: string | null, expect: RegExp][] = [
    [join(dir, 'r.html'), null, /^<!DOCTYPE html>/i],
    [join(dir, 'r.md'), null, /^#/],
    [join(dir, 'r.json'), null, /^\{/],
    [join(dir, 'r.txt'), null, /^A {2}= run 1 'A'/],
    [join(dir, 'lkml.txt'), 'lkml', /^getppid|^Means|^\S/],
    [join(dir, 'patch-notes'), 'lkml', /^\S/],
  ];
  for (const [file, format, expect] of cases) {
    const r = await runCli(['report', 'A', 'B', '--db', db, '-o', file, ...(format ? ['--format', format] : [])]);
    assert.equal(r.code, 0, `${file}: ${r.stderr}`);
    assert.match(readFileSync(file, 'utf8'), expect, file);
  }
  const unknown = await runCli(['report', 'A', 'B', '--db', db, '-o', join(dir, 'notes')]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /-o .*notes: cannot tell the format from a name without an extension \(known: \.txt, \.md, \.json, \.html, \.htm\); pass --format/);
  const contradicts = await runCli(['report', 'A', 'B', '--db', db, '-o', join(dir, 'x.html'), '--format', 'lkml']);
  assert.equal(contradicts.code, 2);
  assert.match(contradicts.stderr, /--format lkml contradicts -o .*x\.html, which names a \.html file \(html\); drop --format/);
});

test('export -o x.csv writes CSV without --format', async () => {
  const db = pairDb();
  const file = join(tempDir(), 'rounds.csv');
  const r = await runCli(['export', 'A', '--db', db, '-o', file]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(readFileSync(file, 'utf8'), /^run_id,seq,subject/);
});

test('--quiet leaves stdout as it is and stderr with warnings and errors only', async () => {
  const db = pairDb();
  const file = join(tempDir(), 'r.md');
  const loud = await runCli(['report', 'A', 'B', '--db', db, '-o', file]);
  assert.match(loud.stderr, /wrote md report to/);
  const quiet = await runCli(['--quiet', 'report', 'A', 'B', '--db', db, '-o', file]);
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.equal(quiet.stderr, '');
  const after = await runCli(['compare', 'A', 'B', '--db', db, '-q']);
  assert.equal(after.stdout, (await runCli(['compare', 'A', 'B', '--db', db])).stdout, 'the results are the same');
  const error = await runCli(['-q', 'compare', 'A', 'nope', '--db', db]);
  assert.equal(error.code, 2);
  assert.match(error.stderr, /no run with id or label 'nope'/);
});

test('runs --json lists every run as a versioned document, and runs RUN --json is the export document', async () => {
  const db = pairDb();
  const r = await runCli(['runs', '--json', '--db', db]);
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout) as { schema: number; database: string; runs: { id: number; label: string; status: string; unit: string; measuredRounds: Record<string, number>; kernelRelease: string }[] };
  assert.equal(doc.schema, 1);
  assert.equal(doc.database, db);
  assert.deepEqual(doc.runs.map((x) => [x.id, x.label, x.status, x.unit, x.measuredRounds.getppid, x.kernelRelease]), [
    [1, 'A', 'complete', 'ns/call', 10, '6.12.9-amd64'],
    [2, 'B', 'complete', 'ns/call', 10, '6.12.9-amd64'],
  ]);
  const one = await runCli(['runs', 'B', '--json', '--db', db]);
  assert.equal(one.stdout, (await runCli(['export', 'B', '--format', 'json', '--db', db])).stdout);
});

test("bench --help states each mode's defaults as the code has them", async () => {
  const r = await runCli(['bench', '--help']);
  const help = r.stdout.replace(/\s+/g, ' ');
  assert.match(help, new RegExp(`--block-rounds <n> duet and alternation: measured rounds per block \\(default ${DEFAULT_BLOCK_ROUNDS}\\)`));
  assert.match(help, new RegExp(`--time <seconds> duet and alternation: seconds of measuring per profile \\(default ${DEFAULT_SECONDS_PER_PROFILE}\\)`));
  assert.match(help, new RegExp(`--warmups <n> warm-up rounds per probe process, not stored as measurements \\(duet and alternation: ${PAIRED_WARMUPS} unless given\\) \\(default: 3\\)`));
  assert.match(help, /--ops <n> calls per round for every profile \(default: per profile, see bench --list; duet and alternation: a fifth of it\)/);
  assert.match(help, /--rounds <n> measured rounds per profile \(plain runs and --design processes; per run with --design abbaab; duet and alternation measure for --time\) \(default: 15\)/);
  const runs = (await runCli(['runs', '--help'])).stdout.replace(/\s+/g, ' ');
  assert.match(runs, /--db <path> results database \(default: \$HINTLAB_DB or ~\/\.local\/share\/hintlab\/hintlab\.db\)/);
});

test('a leading --quiet is not part of the command line a run records, and leaves only warnings on stderr', async () => {
  const db = join(tempDir(), 'h.db');
  const r = await runCli(['-q', 'bench', '--db', db, '--profile', 'getppid', '--ops', '200', '--warmups', '0', '--rounds', '2', '--processes', '1', '--label', 'Q']);
  assert.equal(r.code, 0, r.stderr);
  for (const line of r.stderr.split('\n').filter(Boolean)) assert.match(line, /^warning: /);
  const runs = JSON.parse((await runCli(['runs', '--json', '--db', db])).stdout) as { runs: { command: string }[] };
  assert.match(runs.runs[0]!.command, /^hintlab bench --db /);
});

test('trial -o takes its format from the extension, and a contradicting --format is refused before anything builds', { skip: requireAll(requireTool('patch', 'patch'), requireTool('objdump', 'binutils')) }, async () => {
  const dir = tempDir();
  const src = miniTree(dir);
  const patch = miniPatch(src, dir, 'hint.patch', 'kernel/sys_impl.c', '\tif (!param || pid < 0)', '\tif (__builtin_expect(!param || pid < 0, 1))');
  const scenario = join(dir, 'tiny.scn');
  writeFileSync(scenario, 'scenario tiny\nsetpriority pid=self nice=3\n');
  const services: Services = { trial: { services: { buildKernel: miniBuild() }, launcher: scriptedGuest(), probe: unusedProbe(dir), cacheDir: dir } };
  const argv = ['trial', '--src', src, '--patch', patch, '--out', join(dir, 'out'), '--db', join(dir, 't.db'), '--scenario', scenario, '--profile', 'getppid', '--ops', '1000', '--no-cost'];
  const refused = await runCli([...argv, '-o', join(dir, 't.html'), '--format', 'md'], { services });
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /^hintlab: --format md contradicts -o .*t\.html/);
  assert.equal(existsSync(join(dir, 't.db')), false, 'nothing ran');
  const html = await runCli([...argv, '-o', join(dir, 't.html')], { services });
  assert.equal(html.code, 0, html.stderr);
  assert.match(readFileSync(join(dir, 't.html'), 'utf8'), /^<!DOCTYPE html>/i);
  assert.match(html.stderr, /wrote the html report of trial #1 to /);
});

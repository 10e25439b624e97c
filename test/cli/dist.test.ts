/**
 * The compiled package: `npm run build`'s tsc output, laid out as an
 * installed package (bin/, dist/, probes/, package.json), run by plain node
 * with no TypeScript loader. Built into a scratch directory, so a stale
 * dist/ in the checkout cannot make this pass.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { PROFILES } from '../../src/bench/profiles.ts';
import { VERSION } from '../../src/version.ts';
import { tempDir } from '../helpers/cli.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = tempDir('hintlab-dist-');
after(() => rmSync(pkg, { recursive: true, force: true }));

/** Run the package's bin with node alone, as an installed `hintlab` runs. */
function hintlab(root: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(process.execPath, [join(root, 'bin', 'hintlab.js'), ...args], { encoding: 'utf8', cwd: tempDir(), env });
}

const TTL = '/proc/sys/net/ipv4/ip_default_ttl';
const netns = spawnSync('unshare', ['-n', 'true']).status === 0;

const RECORD_LOADS = join(ROOT, 'test/helpers/record-loads.mjs');
const HEAVY = ['better-sqlite3', 'yaml', 'web-tree-sitter'];

/** Run the bin with the module recorder preloaded; the heavy packages among what it loaded. */
function heavyLoaded(root: string, args: string[]): { status: number | null; stderr: string; heavy: string[] } {
  const log = join(tempDir(), 'loads');
  writeFileSync(log, '');
  const r = spawnSync(process.execPath, ['--import', RECORD_LOADS, join(root, 'bin', 'hintlab.js'), ...args], { encoding: 'utf8', cwd: tempDir(), env: { ...process.env, HINTLAB_LOADS: log } });
  const loaded = readFileSync(log, 'utf8');
  return { status: r.status, stderr: r.stderr, heavy: HEAVY.filter((p) => loaded.includes(`/node_modules/${p}/`)) };
}

describe('the built package', () => {
  before(() => {
    // the two steps of `npm run build` (package.json), into the scratch package
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(pkg, 'dist')], { stdio: 'inherit' });
    execFileSync(process.execPath, [join(ROOT, 'scripts/copy-runtime-files.mjs'), join(pkg, 'dist')], { stdio: 'inherit' });
    mkdirSync(join(pkg, 'bin'));
    copyFileSync(join(ROOT, 'bin/hintlab.js'), join(pkg, 'bin/hintlab.js'));
    copyFileSync(join(ROOT, 'package.json'), join(pkg, 'package.json'));
    symlinkSync(join(ROOT, 'probes'), join(pkg, 'probes'));
    symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'));
  });

  test('prints its version', () => {
    const r = hintlab(pkg, ['--version']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `${VERSION}\n`);
  });

  for (const args of [['--version'], ['--help'], ['runs', '--help']]) {
    test(`${args.join(' ')} starts without loading ${HEAVY.join(', ')}`, () => {
      const r = heavyLoaded(pkg, args);
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(r.heavy, []);
    });
  }

  test('a command that opens the database does load better-sqlite3, so the recorder sees packages', () => {
    const db = join(tempDir(), 'h.db');
    writeFileSync(db, ''); // an empty file is an empty SQLite database
    const r = heavyLoaded(pkg, ['runs', '--db', db]);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.heavy, ['better-sqlite3']);
  });

  test('bench --list finds the probe sources and lists every profile', () => {
    const r = hintlab(pkg, ['bench', '--list']);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n').map((l) => l.split(/\s+/)[0]), PROFILES.map((p) => p.name));
  });

  test('a short real bench run compiles the probe from probes/ beside dist/ and stores its rounds', () => {
    const db = join(tempDir(), 'h.db');
    const r = hintlab(pkg, ['bench', '--db', db, '--profile', 'getppid', '--rounds', '2', '--warmups', '0', '--processes', '1', '--ops', '1000']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^getppid +[\d.]+ .* 2 x 1000$/m);
  });

  test('npm run build copies the runtime files tsc does not emit', () => {
    const build = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { build: string } }).scripts.build;
    assert.match(build, /^tsc -p tsconfig\.build\.json && node scripts\/copy-runtime-files\.mjs dist$/);
  });

  // A real sysctl in a network namespace of its own, as test/cli/bench-interleave.test.ts does from source.
  test('--switch-file runs end to end from the built package and the sysctl holds its original value after', { skip: netns ? false : 'unshare -n is not permitted here' }, () => {
    const db = join(tempDir(), 'h.db');
    const script = `cat ${TTL}; "$0" "$1" bench --db "$2" --profile getppid --ops 500 --warmups 0 --rounds 2 --processes 1 --switch-file ${TTL}=99 >/dev/null && cat ${TTL}`;
    const r = spawnSync('unshare', ['-n', 'sh', '-c', script, process.execPath, join(pkg, 'bin', 'hintlab.js'), db], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const [before, after] = r.stdout.trim().split('\n');
    assert.equal(before, '64', 'a fresh namespace starts at the kernel default');
    assert.equal(after, '64');
    const runs = hintlab(pkg, ['runs', 'B', '--verbose', '--db', db]);
    assert.match(runs.stdout, new RegExp(`switchFiles.*${TTL}=99`));
  });

  test('hints --static parses on worker threads without a TypeScript loader', () => {
    const src = tempDir();
    // 40 files: the smallest tree the parser hands to worker threads
    for (let i = 0; i < 40; i++) writeFileSync(join(src, `f${i}.c`), `long ksys_f${i}(int x)\n{\n\tif (x < 0)\n\t\treturn -EINVAL;\n\treturn x;\n}\n`);
    const r = hintlab(pkg, ['hints', '--static', '--src', src, '--jobs', '2', '--format', 'json']);
    assert.equal(r.status, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { rows: { fn: string }[] };
    assert.equal(doc.rows.length, 40);
  });
});

test('a package without dist/ says how to build it', () => {
  const bare = tempDir('hintlab-nodist-');
  mkdirSync(join(bare, 'bin'));
  copyFileSync(join(ROOT, 'bin/hintlab.js'), join(bare, 'bin/hintlab.js'));
  copyFileSync(join(ROOT, 'package.json'), join(bare, 'package.json'));
  const r = hintlab(bare, ['--version']);
  assert.equal(r.status, 70);
  assert.match(r.stderr, /^hintlab: .*dist\/cli\/entry\.js is missing: run 'npm run build' in /);
  rmSync(bare, { recursive: true, force: true });
});

/**
 * `hintlab trial` refuses, before anything is built or removed, a tree
 * inside what its builds clear, an --out whose build directories hold the
 * user's files, and an --out that is a file (exit 2, one line).
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Services } from '../../src/cli/io.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { requireTool } from '../helpers/tools.ts';
import { miniBuild, miniPatch, miniTree, scriptedGuest, unusedProbe } from './fakes.ts';

const skip = requireTool('patch', 'patch');
const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));
const probe = unusedProbe(dir);
const scenario = join(dir, 'tiny.scn');
writeFileSync(scenario, 'scenario tiny\nsetpriority pid=self nice=3\n');
const services = (): Services => ({ trial: { services: { buildKernel: miniBuild() }, launcher: scriptedGuest(), probe, cacheDir: dir } });
const trial = (src: string, patch: string, out: string) =>
  runCli(['trial', '--src', src, '--patch', patch, '--out', out, '--db', join(dir, 'trial.db'), '--scenario', scenario, '--profile', 'getppid', '--ops', '1000'], { services: services() });

/** The mini tree at `at`, and a patch for it. */
function treeAt(at: string): { src: string; patch: string; sysImpl: string } {
  const made = miniTree(join(dir, `t-${Math.random().toString(36).slice(2)}`));
  cpSync(made, at, { recursive: true });
  const patch = miniPatch(at, dir, `p-${Math.random().toString(36).slice(2)}.patch`, 'kernel/sys_impl.c', '\tif (!param || pid < 0)', '\tif (__builtin_expect(!param || pid < 0, 1))');
  return { src: at, patch, sysImpl: readFileSync(join(at, 'kernel/sys_impl.c'), 'utf8') };
}

test('a --src inside --out/A/work/src (what build A clears) is refused before anything is removed', { skip }, async () => {
  const y = join(dir, 'y');
  const t = treeAt(join(y, 'A', 'work', 'src'));
  const r = await trial(t.src, t.patch, y);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`^hintlab: --src ${t.src} is inside --out ${y}, which hintlab clears`));
  assert.equal(readFileSync(join(t.src, 'kernel/sys_impl.c'), 'utf8'), t.sysImpl, 'the tree is still there');
});

test('an --out whose A/work/src holds the user\'s files is refused naming that directory; the files stay', { skip }, async () => {
  const t = treeAt(join(dir, 'linux-user'));
  const out = join(dir, 'shared-out');
  cpSync(t.src, join(out, 'A', 'work', 'src'), { recursive: true });
  const r = await trial(t.src, t.patch, out);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`^hintlab: --out ${out}: its build directory ${out}/A holds files hintlab did not write`));
  assert.equal(readFileSync(join(out, 'A', 'work', 'src', 'kernel/sys_impl.c'), 'utf8'), t.sysImpl);
});

test('--out naming an existing file is a usage error (exit 2), not an internal EEXIST', { skip }, async () => {
  const t = treeAt(join(dir, 'linux-file'));
  const file = join(dir, 'a-file');
  writeFileSync(file, 'mine\n');
  const r = await trial(t.src, t.patch, file);
  assert.deepEqual([r.code, r.stderr], [2, `hintlab: --out ${file} exists and is not a directory; give a new directory (hintlab creates it) or an earlier trial's --out\n`]);
  assert.equal(readFileSync(file, 'utf8'), 'mine\n');
});

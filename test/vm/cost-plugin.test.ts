/**
 * hintlab's qemu cost plugin loaded by the real qemu with arguments it must
 * refuse: qemu stops before the guest runs (here: before it reads the
 * kernel file, which does not exist), with the plugin's message, and no
 * counts are written under a model other than the one asked for.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { buildCostPlugin } from '../../src/vm/cost-plugin.ts';
import { tempDir } from '../helpers/cli.ts';
import { requireAll, requireTool } from '../helpers/tools.ts';

const skip = requireAll(requireTool('qemu-system-x86_64', 'qemu-system-x86'), requireTool('cc', 'gcc'));
const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

function load(args: string): { status: number | null; stderr: string; out: string } {
  const out = join(dir, `out-${args.replace(/\W/g, '_')}.txt`);
  const r = spawnSync('qemu-system-x86_64', ['-display', 'none', '-accel', 'tcg', '-plugin', `${buildCostPlugin().path},out=${out},${args}`, '-kernel', join(dir, 'no-kernel')], { encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stderr: r.stderr, out };
}

test('the plugin refuses an l1i, ways or line value outside 1..2^30 instead of running its default model', { skip }, () => {
  for (const args of ['l1i=2147483648,ways=1,line=64', 'l1i=32768,ways=8,line=-1', 'l1i=32768,ways=x,line=64']) {
    const r = load(args);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /hintlab-cost: bad value in '(l1i|ways|line)=[^']*' \(a whole number in 1\.\.2\^30\)/, args);
    assert.match(r.stderr, /Could not load plugin/);
    assert.equal(existsSync(r.out), false, `${args}: the plugin wrote counts under its default model`);
  }
});

test('the plugin loads with a model in range and names it in its header', { skip }, () => {
  const r = load('l1i=65536,ways=4,line=64');
  // qemu got past the plugin and stopped at the missing kernel file
  assert.match(r.stderr, /could not open kernel file/, r.stderr);
  assert.match(readHeader(r.out), /^hintlab-cost 1 target=x86_64 l1i=65536 ways=4 line=64 predictor=2bit,4096$/);
});

function readHeader(file: string): string {
  return spawnSync('head', ['-1', file], { encoding: 'utf8' }).stdout.trimEnd();
}

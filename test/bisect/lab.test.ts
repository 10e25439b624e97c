/**
 * The real lab's build decisions (src/bisect/lab.ts) with the builder and
 * the boots scripted: a commit is exported with git archive, a commit next
 * to a built one is built from its objects with the diff between them, a
 * failing build or boot is a skip, and close() removes the exported trees.
 */
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { KernelLab, type KernelLabServices } from '../../src/bisect/lab.ts';
import type { Commit } from '../../src/bisect/search.ts';
import { UserError } from '../../src/errors.ts';
import type { KernelBuildRequest } from '../../src/kernel/inputs.ts';
import type { KernelManifest } from '../../src/kernel/manifest.ts';
import { Store } from '../../src/store/store.ts';
import type { VmLauncher } from '../../src/launch/qemu.ts';
import type { ProbeBuild } from '../../src/launch/probe-build.ts';
import { checkoutState, git, makeHistory } from './history.ts';

function lab(dir: string, src: string, store: Store, builds: KernelBuildRequest[], services: Partial<KernelLabServices> = {}, onDetail?: (line: string) => void): KernelLab {
  const fakeBuild: KernelLabServices['buildKernel'] = (req) => {
    builds.push(req);
    if (existsSync(join(req.src, 'broken')) && !req.patches.length) return Promise.reject(new UserError('the kernel build failed (make exit 2)'));
    mkdirSync(req.out, { recursive: true });
    writeFileSync(join(req.out, 'bzImage'), 'image');
    const manifest = { schema: 1, image: 'bzImage', label: req.label, configSha256: '0'.repeat(64) } as unknown as KernelManifest;
    writeFileSync(join(req.out, 'hintlab-kernel.json'), JSON.stringify(manifest));
    return Promise.resolve({ state: 'built', dir: req.out, manifest, modulesNotBuilt: [] });
  };
  return new KernelLab(
    { src, out: join(dir, 'area'), base: 'tinyconfig', fragment: null, opt: 'O2', jobs: 1, profile: { name: 'getppid' } as never, metric: 'instructions/call', cost: null, ops: null, rounds: 1, warmups: 0, timeoutSeconds: 60, command: 'hintlab bisect', invocation: { argv: [], cwd: dir }, hintlabVersion: 'test' },
    {
      store,
      launcher: {} as VmLauncher,
      probe: {} as ProbeBuild,
      abort: new AbortController().signal,
      ...(onDetail ? { onDetail } : {}),
      services: {
        buildKernel: fakeBuild,
        runVm: (req) => Promise.resolve({ state: 'finished', accel: { accel: 'tcg', why: 'test' } as never, unit: 'instructions/call', steps: [{ index: 0, kernel: req.kernels[0]!, bootIndex: 1, runLabel: 'x', state: 'failed', runId: 7, reason: 'no probe lines' }] }),
        ...services,
      },
    },
  );
}

test('a commit next to a built one is built from its objects with the diff between them; the first from its own exported tree', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hintlab-bisect-lab-'));
  const store = Store.open(join(dir, 'lab.db'));
  try {
    const src = join(dir, 'linux');
    const hashes = makeHistory(src, [{ subject: 'one', adds: 3 }, { subject: 'two', adds: 4 }, { subject: 'three', adds: 5 }]);
    writeFileSync(join(src, 'README'), 'local edit\n');
    const before = checkoutState(src);
    const history: Commit[] = hashes.map((hash) => ({ hash, subject: '', author: '' }));
    const builds: KernelBuildRequest[] = [];
    const l = lab(dir, src, store, builds);
    const first = await l.measure(history[0]!, 1, history);
    assert.deepEqual(first, { state: 'skip', reason: 'boot failed (run #7): no probe lines' });
    assert.equal(readFileSync(join(builds[0]!.src, 'cost'), 'utf8'), '1000\n', 'the commit\'s tree, exported');
    assert.deepEqual([builds[0]!.patches, builds[0]!.from], [[], null]);
    await l.measure(history[2]!, 1, history);
    assert.equal(builds[1]!.src, builds[0]!.src, 'built on the nearest built commit\'s tree');
    assert.equal(builds[1]!.from, builds[0]!.out, 'from its objects');
    assert.match(readFileSync(builds[1]!.patches[0]!, 'utf8'), /^-1000\n\+1007$/m);
    await l.measure(history[2]!, 1, history);
    assert.equal(builds.length, 2, 'a built commit is not built again');
    await l.measure(history[3]!, 1, history);
    assert.equal(builds[2]!.from, builds[1]!.out, 'from the nearest built commit');
    assert.equal(builds[2]!.src, builds[0]!.src, 'a chain of incremental builds keeps the first tree, which --from requires');
    assert.match(readFileSync(builds[2]!.patches[0]!, 'utf8'), /^-1000\n\+1012$/m, 'the diff from that tree, not from the neighbour');
    await l.close();
    assert.equal(existsSync(join(dir, 'area', 'trees')), false, 'the exported trees are removed');
    assert.deepEqual(checkoutState(src), before);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a commit whose build fails is a skip naming the build error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hintlab-bisect-lab-'));
  const store = Store.open(join(dir, 'lab.db'));
  try {
    const src = join(dir, 'linux');
    const hashes = makeHistory(src, [{ subject: 'breaks', breaks: true }]);
    const history: Commit[] = hashes.map((hash) => ({ hash, subject: '', author: '' }));
    const r = await lab(dir, src, store, []).measure(history[1]!, 1, history);
    assert.deepEqual(r, { state: 'skip', reason: 'build failed: the kernel build failed (make exit 2)' });
    assert.equal(git(src, 'status', '--porcelain'), '');
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a commit that adds, retargets or removes a symbolic link gets a full build of its own tree, not a diff patch(1) would write as a regular file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hintlab-bisect-lab-'));
  const store = Store.open(join(dir, 'lab.db'));
  try {
    const src = join(dir, 'linux');
    const hashes = makeHistory(src, [{ subject: 'one', adds: 1 }]);
    symlinkSync('cost', join(src, 'cost-link'));
    git(src, 'add', 'cost-link');
    git(src, 'commit', '-q', '-m', 'add a link');
    rmSync(join(src, 'cost-link'));
    symlinkSync('README', join(src, 'cost-link'));
    git(src, 'commit', '-q', '-am', 'retarget the link');
    git(src, 'rm', '-q', 'cost-link');
    git(src, 'commit', '-q', '-m', 'remove the link');
    hashes.push(...['HEAD~2', 'HEAD~1', 'HEAD'].map((r) => git(src, 'rev-parse', r)));
    const history: Commit[] = hashes.map((hash) => ({ hash, subject: '', author: '' }));
    const builds: KernelBuildRequest[] = [];
    const details: string[] = [];
    const l = lab(dir, src, store, builds, {}, (line) => details.push(line));
    await l.measure(history[1]!, 1, history);
    await l.measure(history[2]!, 1, history);
    assert.deepEqual([builds[1]!.patches, builds[1]!.from], [[], null], 'a full build');
    assert.ok(lstatSync(join(builds[1]!.src, 'cost-link')).isSymbolicLink(), 'of the exported tree, link and all');
    assert.match(details.join('\n'), /changes the symbolic link cost-link, which patch\(1\) would write as a regular file; a full build of [0-9a-f]{12} instead/);
    await l.measure(history[3]!, 1, history);
    assert.equal(builds[2]!.from, null, 'a retargeted link: a full build too');
    await l.measure(history[4]!, 1, history);
    assert.equal(builds[3]!.from, null, 'a removed link: a full build too');
    // a diff without a link still builds from the neighbour's objects
    await l.measure(history[0]!, 1, history);
    assert.equal(builds[4]!.from, builds[0]!.out);
    await l.close();
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

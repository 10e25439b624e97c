/**
 * `hintlab bisect --target lava://...` through a real LAVA (Debian's
 * packages, started by scripts/lava-lab.sh with one qemu device without
 * KVM): a git history made here whose `kernel` file names one of two
 * Debian cloud kernels (the older until the culprit, the newer from it),
 * "built" by copying that kernel's vmlinuz as the commit's bzImage (a real
 * kernel cannot be built per commit in a test), and every boot a LAVA job
 * under -icount. Slow: about half a minute a job.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { findProfile } from '../../src/bench/profiles.ts';
import { KernelLab, siteOpener } from '../../src/bisect/lab.ts';
import { runBisect } from '../../src/bisect/run.ts';
import type { KernelBuildRequest } from '../../src/kernel/inputs.ts';
import { IMAGE_FILE, MANIFEST_FILE, type KernelManifest } from '../../src/kernel/manifest.ts';
import { buildProbe } from '../../src/launch/probe-build.ts';
import { Store } from '../../src/store/store.ts';
import { parsePlace } from '../../src/targets/place.ts';
import { tempDir } from '../helpers/cli.ts';
import { lavaForTests, requireLava } from '../helpers/lava.ts';
import { boxKernels } from '../helpers/qemu-box.ts';
import { requireAll, requireTool } from '../helpers/tools.ts';
import { scriptedGuest } from '../trial/fakes.ts';
import { git } from './history.ts';

const kernels = boxKernels();
const skip = requireAll(requireLava(), requireTool('gcc', 'gcc'), requireTool('patch', 'patch'), kernels ? false : 'needs two different Debian cloud kernels: run test/fixtures/fetch-box-kernels.sh (needs apt access)');
const dir = tempDir('hintlab-bisect-lava-lab-');
const labOf = lavaForTests(skip, dir);

/** Six commits after a base; the fourth switches `kernel` from the older cloud kernel to the newer one. */
function history(src: string, older: string, newer: string): string[] {
  mkdirSync(src, { recursive: true });
  git(src, 'init', '-q', '-b', 'master');
  writeFileSync(join(src, 'kernel'), `${older}\n`);
  git(src, 'add', '.');
  git(src, 'commit', '-q', '-m', 'base');
  git(src, 'tag', 'v1');
  const hashes = [git(src, 'rev-parse', 'HEAD')];
  for (const [i, subject] of ['comment', 'comment', 'hint', 'move to the newer kernel', 'comment', 'comment'].entries()) {
    if (subject.startsWith('move')) writeFileSync(join(src, 'kernel'), `${newer}\n`);
    writeFileSync(join(src, `note-${i}`), `${subject}\n`);
    git(src, 'add', '.');
    git(src, 'commit', '-q', '-m', subject);
    hashes.push(git(src, 'rev-parse', 'HEAD'));
  }
  return hashes;
}

/** A "build" that copies the cloud kernel the tree names as the commit's image. */
function copyBuild(req: KernelBuildRequest): Promise<{ state: 'built'; dir: string; manifest: KernelManifest; modulesNotBuilt: string[] }> {
  const named = readFileSync(join(req.src, 'kernel'), 'utf8').trim();
  const patched = req.patches.map((p) => readFileSync(p, 'utf8')).join('');
  // an incremental build's diff names the kernel its commit switched to
  const image = /^\+(\/.*vmlinuz.*)$/m.exec(patched)?.[1] ?? named;
  mkdirSync(req.out, { recursive: true });
  copyFileSync(image, join(req.out, IMAGE_FILE));
  const manifest = { schema: 1, image: IMAGE_FILE, label: req.label, configSha256: '0'.repeat(64) } as unknown as KernelManifest;
  writeFileSync(join(req.out, MANIFEST_FILE), JSON.stringify(manifest));
  return Promise.resolve({ state: 'built', dir: req.out, manifest, modulesNotBuilt: [] });
}

test('a bisect whose boots are LAVA jobs on a real lab finds the commit that moved to the other kernel, in exact mode', { skip, timeout: 1_800_000 }, async () => {
  const lab = labOf();
  assert.ok(lab && kernels);
  const [newer, older] = kernels;
  const src = join(dir, 'linux');
  const hashes = history(src, older.image, newer.image);
  const place = parsePlace('bisect', { target: [lab.target] }, { HINTLAB_LAVA_TOKEN: lab.token });
  const probe = buildProbe({ static: true });
  const store = Store.open(join(dir, 'lab.db'));
  const progress: string[] = [];
  const here = scriptedGuest();
  try {
    const kernelLab = new KernelLab(
      { src, out: join(dir, 'area'), base: 'tinyconfig', fragment: null, opt: 'O2', jobs: 1, profile: findProfile('getppid')!, metric: 'instructions/call', cost: null, ops: 20000, rounds: 3, warmups: 1, timeoutSeconds: 600, command: 'hintlab bisect', invocation: { argv: [], cwd: dir }, hintlabVersion: 'test' },
      { store, launcher: here, probe, abort: new AbortController().signal, services: { buildKernel: copyBuild }, openSite: siteOpener(place, { probe, onEvent: (e) => progress.push(e.kind) }) },
    );
    const target = place.kind === 'qemu' ? null : place.address.name;
    const doc = await runBisect({ src, good: 'v1', bad: 'master', out: join(dir, 'area'), metric: { subject: 'getppid', name: 'instructions/call', costModel: null }, keyInputs: { probe: probe.buildId }, resume: false, command: 'hintlab bisect', target }, { store, lab: kernelLab });
    assert.equal(doc.outcome.state === 'found' ? doc.outcome.firstBad.hash : null, hashes[4]);
    assert.equal(doc.mode.kind, 'exact', 'each endpoint\'s two jobs gave the same count');
    assert.ok(progress.includes('devices') && progress.includes('lava-job'));
    assert.equal(here.boots.length, 0, 'nothing booted in qemu here');
    for (const s of doc.steps) {
      assert.equal(s.state, 'measured');
      for (const b of s.boots) {
        const run = store.getRun(b.runId!);
        const jobs = (run.environment as { lava?: { jobs: { health: string; url: string }[] } }).lava?.jobs ?? [];
        assert.deepEqual(jobs.map((j) => j.health), ['Complete'], `${s.commit.subject}: one Complete job per boot`);
      }
    }
  } finally {
    store.close();
  }
});

/**
 * What `hintlab kernel build` prints at the end, as snapshots of hand-built
 * build results: a plain build, an incremental box-based one with patches,
 * dropped options and options left as modules, and a reused build.
 */
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { kernelBuildText } from '../../src/report/kernel.ts';
import type { KernelBuildResult } from '../../src/kernel/build.ts';
import type { KernelManifest } from '../../src/kernel/manifest.ts';
import { assertSnapshot } from './snapshot.ts';

const plain = JSON.parse(readFileSync(new URL('../fixtures/kernel-manifest-schema1.json', import.meta.url), 'utf8')) as KernelManifest;

const boxBuilt: KernelManifest = {
  ...plain,
  label: 'B',
  base: 'file:/tmp/box.config',
  release: '6.12.117-hintlab-B',
  modules: 'local-builtin',
  objectsCompiled: 4,
  incremental: { dir: '/k/A', label: 'A', inputKey: 'k' },
  box: { url: 'ssh://lab@box1', path: '/proc/config.gz', release: '6.1.0-28-amd64', sha256: 'ab'.repeat(32) },
  patches: [{ path: '/p/fix.patch', sha256: 'cd'.repeat(32), files: ['kernel/sched/syscalls.c', 'kernel/sys.c'] }],
  droppedOptions: ['UCLAMP_TASK', 'DEBUG_FS'],
};

/** stdout's head, stderr's warnings and stdout's last line, in the order the CLI writes them, marked where the stream changes. */
function output(result: KernelBuildResult, elapsedMs: number): string {
  const parts = kernelBuildText(result, elapsedMs / 1000);
  const warnings = parts.warnings.length ? `[stderr]\n${parts.warnings.join('')}[stdout]\n` : '';
  return `[stdout]\n${parts.head}${warnings}${parts.next}`;
}

test('a kernel build says what was built, from what, where the image is, what was dropped, and how to boot it', () => {
  const texts = [
    output({ state: 'built', dir: '/k/A', manifest: { ...plain, objectsCompiled: 1840 }, modulesNotBuilt: [] }, 599_300),
    output({ state: 'built', dir: '/k/B', manifest: boxBuilt, modulesNotBuilt: ['A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7', 'A8', 'A9'] }, 21_200),
    output({ state: 'built', dir: '/k/C', manifest: { ...boxBuilt, modules: 'builtin', incremental: undefined, objectsCompiled: undefined }, modulesNotBuilt: ['VIRTIO_NET'] }, 100),
    output({ state: 'reused', dir: '/k/A', manifest: plain }, 0),
  ];
  assertSnapshot('kernel-build', texts.join('---\n'));
});

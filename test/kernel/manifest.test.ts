/**
 * Build directories written by earlier versions keep working: a manifest
 * without the fields added later (release, incremental, box, ...) reads,
 * and `hintlab vm --kernel LABEL=DIR` takes a directory of the earlier
 * layout (objects in work/obj).
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { existingLayout } from '../../src/kernel/layout.ts';
import { readManifest } from '../../src/kernel/manifest.ts';
import { resolveKernel } from '../../src/vm/kernels.ts';
import { tempDir } from '../helpers/cli.ts';

const FIXTURE = new URL('../fixtures/kernel-manifest-schema1.json', import.meta.url);
const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

test('a manifest written before release and incremental were recorded still reads, without them', () => {
  const old = join(dir, 'old');
  mkdirSync(old);
  copyFileSync(FIXTURE, join(old, 'hintlab-kernel.json'));
  const m = readManifest(old);
  assert.equal(m?.label, 'A');
  assert.equal(m.release, undefined);
  assert.equal(m.incremental, undefined);
  assert.equal(m.configSha256, 'd03cc6b905f58c2a9b6dce4f875b7eb7af7a05f5589c34fe6733c4c0b54bfaca');
});

test('hintlab vm takes a build directory of the earlier layout (work/obj) with an earlier manifest', () => {
  const old = join(dir, 'vm-old');
  mkdirSync(join(old, 'work/obj'), { recursive: true });
  mkdirSync(join(old, 'work/src'), { recursive: true });
  copyFileSync(FIXTURE, join(old, 'hintlab-kernel.json'));
  writeFileSync(join(old, 'bzImage'), 'the image');
  const k = resolveKernel(`A=${old}`, dir);
  assert.equal(k.image, join(old, 'bzImage'));
  assert.deepEqual(k.configHash, { known: true, value: 'sha256:d03cc6b905f58c2a (hintlab-kernel.json)' });
  assert.equal(existingLayout(old).obj, join(old, 'work/obj'));
});

/**
 * The release and build an x86 kernel image names in its boot header, read
 * without booting it: from a made-up header, from files that are no
 * bzImage, and from a real Debian vmlinuz, whose release its package names.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { after, test } from 'node:test';
import { isBzImage, kernelIdentity, kernelRelease } from '../../src/targets/bzimage.ts';
import { tempDir } from '../helpers/cli.ts';
import { cachedCloudKernel } from '../helpers/cloud-kernel.ts';
import { writeFakeBzImage } from '../session/bzimage.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

test('the release and the build are read from where the header points', () => {
  const path = writeFakeBzImage(join(dir, 'bz'), '6.12.0-hintlab-b', '#3 SMP PREEMPT_DYNAMIC Tue Dec  1 10:00:00 UTC 2026');
  assert.equal(isBzImage(path), true);
  assert.deepEqual(kernelIdentity(path), { release: '6.12.0-hintlab-b', version: '#3 SMP PREEMPT_DYNAMIC Tue Dec  1 10:00:00 UTC 2026' });
});

test('a file that is no bzImage, or one of a boot protocol before 2.00, names no release', () => {
  writeFileSync(join(dir, 'text'), 'not a kernel at all, just text that is long enough'.repeat(40));
  assert.equal(isBzImage(join(dir, 'text')), false);
  assert.equal(kernelRelease(join(dir, 'text')), null);
  const old = writeFakeBzImage(join(dir, 'old'), '2.4.0', '#1');
  const buf = readFileSync(old);
  buf.writeUInt16LE(0x0105, 0x206);
  writeFileSync(old, buf);
  assert.equal(kernelRelease(old), null);
  writeFileSync(join(dir, 'short'), 'HdrS');
  assert.equal(kernelRelease(join(dir, 'short')), null);
});

const vmlinuz = cachedCloudKernel();
test("a Debian cloud vmlinuz names the release its file and package are called by", { skip: vmlinuz ? false : 'no cloud kernel: run test/fixtures/fetch-cloud-kernel.sh' }, () => {
  const release = basename(vmlinuz!).slice('vmlinuz-'.length);
  assert.equal(kernelRelease(vmlinuz!), release);
  assert.match(kernelIdentity(vmlinuz!)!.version, /^#1 SMP PREEMPT_DYNAMIC Debian \d/);
});

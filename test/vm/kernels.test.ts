import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { UserError } from '../../src/errors.ts';
import { chooseAccel } from '../../src/vm/accel.ts';
import { parseOrder, resolveKernel } from '../../src/vm/kernels.ts';
import { planSteps } from '../../src/vm/runner.ts';
import { tempDir } from '../helpers/cli.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

/** The smallest file with the x86 boot protocol's "HdrS" magic at 0x202. */
function fakeBzImage(path: string): string {
  const buf = Buffer.alloc(0x300);
  buf.write('HdrS', 0x202, 'latin1');
  writeFileSync(path, buf);
  return path;
}

const userError = (re: RegExp) => (e: unknown) => e instanceof UserError && re.test(e.message);

test('ABA and comma-separated orders name kernels; unknown or unused labels are refused', () => {
  assert.deepEqual(parseOrder('ABA', ['A', 'B']), ['A', 'B', 'A']);
  assert.deepEqual(parseOrder('base,patched,base', ['base', 'patched']), ['base', 'patched', 'base']);
  assert.throws(() => parseOrder('ACA', ['A', 'B']), userError(/step 'C' is not a --kernel label/));
  assert.throws(() => parseOrder('AA', ['A', 'B']), userError(/never boots kernel B/));
});

test('each boot is labelled with its kernel and its boot index', () => {
  const k = (label: string) => ({ label, image: label, manifest: null, configHash: { known: false as const, reason: '' } });
  const steps = planSteps({ kernels: [k('A'), k('B')], steps: ['A', 'B', 'A', 'B'], labelPrefix: 'vm-' });
  assert.deepEqual(steps.map((s) => s.runLabel), ['vm-A-1', 'vm-B-1', 'vm-A-2', 'vm-B-2']);
});

test('a bzImage is accepted, and its config next to it is hashed', () => {
  const boot = join(dir, 'boot');
  mkdirSync(boot);
  const image = fakeBzImage(join(boot, 'vmlinuz-6.1.0-hl'));
  writeFileSync(join(boot, 'config-6.1.0-hl'), 'CONFIG_X=y\n');
  const k = resolveKernel(`A=${image}`, '/');
  assert.equal(k.image, image);
  // sha256("CONFIG_X=y\n"), computed independently with sha256sum
  assert.deepEqual(k.configHash, { known: true, value: `sha256:1f7630d899dcba37 (${join(boot, 'config-6.1.0-hl')})` });
});

test('bad --kernel values are refused naming the label, the path and the fix', () => {
  const notKernel = join(dir, 'notes.txt');
  writeFileSync(notKernel, 'hello'.repeat(200));
  assert.throws(() => resolveKernel(`A=${notKernel}`, '/'), userError(/--kernel A: .*notes\.txt is not an x86 bzImage/));
  assert.throws(() => resolveKernel(`A=${join(dir, 'missing')}`, '/'), userError(/--kernel A: .*missing does not exist/));
  assert.throws(() => resolveKernel('./bzImage', '/'), userError(/expected LABEL=PATH/));
  assert.throws(() => resolveKernel(`A=${dir}`, '/'), userError(/is a directory without hintlab-kernel\.json/));
});

test('--accel auto uses KVM only when the trial boot works, and says why not otherwise', async () => {
  const ok = async () => null;
  const hangs = async () => 'no probe output within 20 s';
  assert.deepEqual(await chooseAccel('auto', false, ok, () => null), { accel: 'kvm', why: 'a trial boot under KVM ran the probe' });
  const fallback = await chooseAccel('auto', false, hangs, () => null);
  assert.equal(fallback.accel, 'tcg');
  assert.match(fallback.why, /trial boot under KVM failed \(no probe output within 20 s\)/);
  const noDevice = await chooseAccel('auto', false, ok, () => '/dev/kvm: ENOENT');
  assert.deepEqual(noDevice, { accel: 'tcg', why: 'KVM is not available (/dev/kvm: ENOENT)' });
  assert.equal((await chooseAccel('auto', true, ok, () => null)).accel, 'tcg');
  await assert.rejects(chooseAccel('kvm', true, ok, () => null), userError(/--icount .* needs TCG/));
  await assert.rejects(chooseAccel('kvm', false, ok, () => '/dev/kvm: EACCES'), userError(/--accel kvm: \/dev\/kvm: EACCES/));
});

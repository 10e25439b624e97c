/**
 * A box-based configuration with the real kconfig of linux-source-6.12:
 * Debian's own cloud-amd64 configuration (package linux-config-6.12, 1138
 * options `=m`) stands in for the box's /boot/config-<release>, read over
 * real ssh from the test sshd, then configured as `kernel build` does
 * (configure steps only: compiling it would take an hour here). Checked on
 * the final .config against what the cloud configuration is known to say:
 * modules become built in (all, or only those in the module list), and the
 * release gets -hintlab-<label>.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { release } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseConfig } from '../../src/kernel/config.ts';
import { configure } from '../../src/kernel/configure.ts';
import { gatherInputs, type KernelBuildRequest } from '../../src/kernel/inputs.ts';
import { buildLayout } from '../../src/kernel/layout.ts';
import { runMake } from '../../src/kernel/make.ts';
import { linkCopy } from '../../src/kernel/source.ts';
import { parseSshUrl } from '../../src/targets/ssh-address.ts';
import { KERNEL_TARBALL, testKernelTree } from '../codegen/kernel-tree.ts';
import { tempDir } from '../helpers/cli.ts';
import { requireSsh, startSshd, type TestSshd } from '../helpers/sshd.ts';
import { requireAll, requireFile, requireKernelBuildTools, requireTool } from '../helpers/tools.ts';

const CLOUD_CONFIG = '/usr/src/linux-config-6.12/config.amd64_none_cloud-amd64.xz';
const skip = requireAll(
  requireFile(KERNEL_TARBALL, 'linux-source-6.12'),
  requireFile(CLOUD_CONFIG, 'linux-config-6.12'),
  requireKernelBuildTools(),
  requireTool('xz', 'xz-utils'),
  requireTool('perl', 'perl'),
  requireSsh(),
);

const LSMOD = `Module                  Size  Used by
virtio_net             77824  0
net_failover           20480  1 virtio_net
failover               16384  1 net_failover
virtio_blk             28672  2
`;

let sshd: TestSshd;
let dir: string;

before(async () => {
  if (skip) return;
  sshd = await startSshd();
  dir = tempDir();
  mkdirSync(join(dir, 'boot'));
  writeFileSync(join(dir, 'boot', `config-${release()}`), execFileSync('xz', ['-dc', CLOUD_CONFIG]));
  writeFileSync(join(dir, 'lsmod'), LSMOD);
});
after(async () => {
  await (sshd as TestSshd | undefined)?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Fetch over ssh and configure a copy of the tree as `kernel build` would; the final .config. */
async function configured(name: string, over: Partial<KernelBuildRequest>): Promise<Map<string, string>> {
  const out = join(dir, name);
  const req: KernelBuildRequest = {
    src: testKernelTree(), patches: [], fragment: null, opt: 'O2', out, label: name, jobs: 2,
    base: { box: parseSshUrl(sshd.url, '--base') },
    ssh: { configFile: sshd.config }, boxConfigPaths: ['/proc/no-such-config.gz', join(dir, 'boot', 'config-{release}')],
    ...over,
  };
  const inputs = await gatherInputs(req);
  assert.equal(inputs.box?.path, join(dir, 'boot', `config-${release()}`));
  const layout = buildLayout(out);
  mkdirSync(layout.work, { recursive: true });
  linkCopy(req.src, layout.tree, []);
  const log = join(out, 'build.log');
  writeFileSync(log, '');
  const list = inputs.modulesList !== null ? join(out, 'modules-list') : null;
  if (list) writeFileSync(list, inputs.modulesList!);
  await configure(layout.tree, layout.obj, inputs, list, async (args, what) => {
    const r = await runMake({ args, log, abort: new AbortController().signal });
    assert.equal(r.state, 'ok', `${what}: ${readFileSync(log, 'utf8').slice(-2000)}`);
  });
  return parseConfig(readFileSync(join(layout.obj, '.config'), 'utf8'));
}

describe("a box's distribution configuration, its modules built in", { skip, timeout: 900_000 }, () => {
  test('by default every module the box could load is built in, and the release ends in -hintlab-<label>', async () => {
    const c = await configured('all', {});
    for (const name of ['VIRTIO_NET', 'VIRTIO_BLK', 'XFS_FS', 'BTRFS_FS']) assert.equal(c.get(name), 'y', `CONFIG_${name} (=m in the cloud configuration)`);
    assert.equal(c.get('LOCALVERSION'), '"-hintlab-all"');
    const modules = [...c].filter(([, v]) => v === 'm').map(([k]) => k);
    assert.ok(modules.length < 20, `${modules.length} options left as modules: ${modules.join(', ')}`);
  });

  test('with --localmodconfig only the listed modules (and what they need) are built in; the others are dropped', async () => {
    const c = await configured('local', { localmodconfig: true, lsmod: join(dir, 'lsmod') });
    for (const name of ['VIRTIO_NET', 'VIRTIO_BLK', 'NET_FAILOVER']) assert.equal(c.get(name), 'y', `CONFIG_${name} is in the module list`);
    for (const name of ['XFS_FS', 'BTRFS_FS']) assert.equal(c.get(name) ?? 'n', 'n', `CONFIG_${name} is not in the module list`);
    // what was built in already stays
    for (const name of ['EXT4_FS', 'BLK_DEV_NVME', 'VIRTIO_PCI']) assert.equal(c.get(name), 'y', `CONFIG_${name} (=y in the cloud configuration)`);
    assert.equal(c.get('LOCALVERSION'), '"-hintlab-local"');
  });
});

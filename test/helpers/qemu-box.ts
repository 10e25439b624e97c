/**
 * A test box: a qemu guest (TCG) that is an ssh-reachable, kexec-capable
 * machine, for the session tests. Its initramfs is built here from Debian
 * packages: busybox-static for the shell and init, dropbear-bin for ssh,
 * kexec-tools, each with its ldd libraries (src/launch/stress-ng-image.ts), the
 * virtio modules of every kernel the box can run (loaded by `uname -r`, in
 * the order LAB-NOTES gives), /etc/passwd with root, a test key in
 * authorized_keys, devpts. qemu user-mode networking forwards a port on
 * 127.0.0.1 to the guest's port 22.
 *
 * The box's own kernel is qemu's -kernel: a plain `reboot` in the guest
 * (busybox init, and qemu WITHOUT -no-reboot) boots it again, exactly like
 * a real box returning to its default boot entry. The same initramfs is
 * the initrd every kernel of the box boots with (tests pass it as
 * `--initrd`). qemu runs under the process supervisor: it dies with the test.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { spawnSupervised, type Supervised } from '../../src/proc/supervise.ts';
import { kernelRelease } from '../../src/targets/bzimage.ts';
import { cpioNewc, type CpioEntry } from '../../src/launch/initramfs.ts';
import { programFiles } from '../../src/launch/stress-ng-image.ts';
import { tempDir } from './cli.ts';
import { cachedCloudKernel } from './cloud-kernel.ts';
import { freePort } from './sshd.ts';
import { requireAll, requireFile, requireTool, type Skip } from './tools.ts';

/** The modules a Debian cloud kernel needs for virtio-net, in load order (LAB-NOTES). */
export const VIRTIO_MODULES = ['virtio_ring', 'virtio', 'virtio_pci_modern_dev', 'virtio_pci_legacy_dev', 'virtio_pci', 'failover', 'net_failover', 'virtio_net'];

export interface BoxKernel {
  image: string;
  release: string;
  /** The unpacked package's lib/modules/<release>. */
  modules: string;
}

/**
 * The two cloud kernels test/fixtures/fetch-box-kernels.sh fetched, newest
 * first: $HINTLAB_BOX_KERNELS (two vmlinuz paths, colon-separated), else
 * the two newest in that script's cache. Null when there are not two.
 */
export function boxKernels(env: NodeJS.ProcessEnv = process.env): [BoxKernel, BoxKernel] | null {
  let images: string[];
  if (env.HINTLAB_BOX_KERNELS) images = env.HINTLAB_BOX_KERNELS.split(':');
  else {
    const newest = cachedCloudKernel({ ...env, HINTLAB_TEST_VMLINUZ: '' });
    if (!newest) return null;
    const cache = dirname(dirname(dirname(newest)));
    images = readdirSync(cache)
      .filter((d) => d.startsWith('linux-image-'))
      .sort((a, b) => b.localeCompare(a, 'en', { numeric: true }))
      .flatMap((pkg) => (existsSync(join(cache, pkg, 'boot')) ? readdirSync(join(cache, pkg, 'boot')).filter((f) => f.startsWith('vmlinuz-')).map((f) => join(cache, pkg, 'boot', f)) : []));
  }
  const kernels = images.slice(0, 2).map((image): BoxKernel | null => {
    const release = kernelRelease(image);
    const modules = join(dirname(dirname(image)), 'lib', 'modules', release ?? '');
    return release && existsSync(modules) ? { image, release, modules } : null;
  });
  const [a, b] = kernels;
  return a && b && a.release !== b.release ? [a, b] : null;
}

/** Skip unless qemu, the box's packages and two different cloud kernels are here. */
export function requireBox(): Skip {
  return requireAll(
    requireTool('qemu-system-x86_64', 'qemu-system-x86'),
    requireFile('/bin/busybox', 'busybox-static'),
    requireFile('/usr/sbin/dropbear', 'dropbear-bin'),
    requireTool('dropbearkey', 'dropbear-bin'),
    requireFile('/usr/sbin/kexec', 'kexec-tools'),
    requireTool('ssh', 'openssh-client'),
    requireTool('ssh-keygen', 'openssh-client'),
    boxKernels() ? false : 'needs two different Debian cloud kernels: run test/fixtures/fetch-box-kernels.sh (needs apt access)',
  );
}

function sh(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr || r.error?.message}`);
  return r.stdout;
}

function findModule(dir: string, name: string): string {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      try {
        return findModule(path, name);
      } catch {
        continue;
      }
    }
    if (entry === `${name}.ko`) return path;
  }
  throw new Error(`module ${name}.ko not found under ${dir}`);
}

const INIT = `#!/bin/busybox sh
/bin/busybox --install -s
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts
mount -t devpts devpts /dev/pts
r=$(uname -r)
for m in ${VIRTIO_MODULES.join(' ')}; do insmod /lib/modules/$r/$m.ko || echo "hintlab-box: insmod $m failed"; done
ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2
hostname hintlab-box
echo "hintlab-box: up on $r, cmdline $(cat /proc/cmdline)"
exec /sbin/init
`;

const INITTAB = `::respawn:/usr/sbin/dropbear -F -E -s -p 22 -r /etc/dropbear/host_key
::shutdown:/bin/echo hintlab-box: going down
`;

const text = (path: string, data: string, mode = 0o644): CpioEntry => ({ kind: 'file', path, data: Buffer.from(data), mode });

/** The box's initramfs (gzip'd newc), holding the modules of every kernel in `kernels`. */
export function boxInitramfs(kernels: BoxKernel[], hostKey: Buffer, authorizedKey: string): Buffer {
  const programs = programFiles([{ binary: '/usr/sbin/dropbear' }, { binary: '/usr/sbin/kexec' }]);
  const entries: CpioEntry[] = [
    ...['bin', 'sbin', 'usr', 'usr/bin', 'usr/sbin', 'proc', 'sys', 'dev', 'etc', 'etc/dropbear', 'var', 'var/run', 'var/log', 'lib', 'lib/modules'].map((path): CpioEntry => ({ kind: 'dir', path })),
    { kind: 'dir', path: 'tmp', mode: 0o1777 },
    { kind: 'char', path: 'dev/console', major: 5, minor: 1 },
    { kind: 'file', path: 'bin/busybox', data: readFileSync('/bin/busybox'), mode: 0o755 },
    text('init', INIT, 0o755),
    text('etc/inittab', INITTAB),
    text('etc/passwd', 'root:x:0:0:root:/root:/bin/sh\n'),
    text('etc/group', 'root:x:0:\n'),
    text('etc/shells', '/bin/sh\n'),
    { kind: 'file', path: 'etc/dropbear/host_key', data: hostKey, mode: 0o600 },
    { kind: 'dir', path: 'root', mode: 0o700 },
    { kind: 'dir', path: 'root/.ssh', mode: 0o700 },
    text('root/.ssh/authorized_keys', authorizedKey, 0o600),
    ...programs.entries.filter((e) => !(e.kind === 'dir' && ['usr', 'usr/sbin', 'lib'].includes(e.path))),
  ];
  for (const k of kernels) {
    entries.push({ kind: 'dir', path: `lib/modules/${k.release}` });
    for (const m of VIRTIO_MODULES) entries.push({ kind: 'file', path: `lib/modules/${k.release}/${m}.ko`, data: readFileSync(findModule(k.modules, m)) });
  }
  return gzipSync(cpioNewc(entries), { level: 6 });
}

export interface QemuBox {
  /** `ssh://root@127.0.0.1:PORT` */
  url: string;
  port: number;
  /** The client's ssh_config (`ssh -F`): the test key and a known_hosts with the box's host key. */
  config: string;
  /** The box's default kernel (qemu's -kernel), and the other one. */
  own: BoxKernel;
  other: BoxKernel;
  /** The initramfs every kernel of the box boots with. */
  initrd: string;
  /** The kernel command line qemu gives the default kernel. */
  append: string;
  dir: string;
  qemu: Supervised;
  /** The serial console so far. */
  console(): string;
  /** Run a command on the box with the plain ssh client (no hintlab involved). */
  ssh(command: string, timeoutMs?: number): { code: number | null; stdout: string; stderr: string };
  /** Poll until `ssh` answers and `ready(stdout of command)` holds; throws after `boundMs`. */
  waitFor(command: string, ready: (out: string) => boolean, boundMs: number): Promise<string>;
  stop(): Promise<void>;
}

/** The host key's public half as a known_hosts line, from `dropbearkey -y`. */
function knownHostsLine(keyFile: string, port: number): string {
  const pub = sh('dropbearkey', ['-y', '-f', keyFile]).split('\n').find((l) => l.startsWith('ssh-'));
  if (!pub) throw new Error(`dropbearkey -y -f ${keyFile} printed no public key`);
  return `[127.0.0.1]:${port} ${pub.split(' ').slice(0, 2).join(' ')}\n`;
}

/** Start the box on its own kernel (the newer of the two); resolves once ssh answers. */
export async function startQemuBox(opts: { bootBoundMs?: number; memoryMiB?: number } = {}): Promise<QemuBox> {
  const kernels = boxKernels();
  if (!kernels) throw new Error('no two box kernels: run test/fixtures/fetch-box-kernels.sh');
  const [own, other] = kernels;
  const dir = tempDir('hintlab-box-');
  sh('dropbearkey', ['-t', 'ed25519', '-f', join(dir, 'host_key')]);
  sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'client')]);
  const initrd = join(dir, 'box.img');
  writeFileSync(initrd, boxInitramfs(kernels, readFileSync(join(dir, 'host_key')), readFileSync(join(dir, 'client.pub'), 'utf8')));
  const port = await freePort();
  writeFileSync(join(dir, 'known_hosts'), knownHostsLine(join(dir, 'host_key'), port));
  const config = join(dir, 'ssh_config');
  writeFileSync(
    config,
    ['Host *', `  IdentityFile ${join(dir, 'client')}`, '  IdentitiesOnly yes', `  UserKnownHostsFile ${join(dir, 'known_hosts')}`, '  GlobalKnownHostsFile /dev/null', '  StrictHostKeyChecking yes', ''].join('\n'),
  );
  const append = 'console=ttyS0 panic=10';
  const consoleLog = join(dir, 'console.log');
  const qemu = spawnSupervised(
    [
      'qemu-system-x86_64', '-nodefaults', '-display', 'none', '-monitor', 'none',
      '-serial', `file:${consoleLog}`,
      '-accel', 'tcg', '-smp', '2', '-m', `${opts.memoryMiB ?? 768}M`,
      '-kernel', own.image, '-initrd', initrd, '-append', append,
      '-netdev', `user,id=n0,hostfwd=tcp:127.0.0.1:${port}-:22`, '-device', 'virtio-net-pci,netdev=n0',
    ],
    { stdout: 'ignore', stderr: 'pipe' },
  );
  let qemuErr = '';
  qemu.stderr.on('data', (b: Buffer) => void (qemuErr += b.toString()));
  let ended = false;
  void qemu.exit.finally(() => (ended = true)).catch(() => undefined);
  const console_ = (): string => (existsSync(consoleLog) ? readFileSync(consoleLog, 'utf8') : '');
  const ssh = (command: string, timeoutMs = 30_000) => {
    const r = spawnSync('ssh', ['-F', config, '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=10', '-p', String(port), 'root@127.0.0.1', command], { encoding: 'utf8', timeout: timeoutMs });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const box: QemuBox = {
    url: `ssh://root@127.0.0.1:${port}`,
    port,
    config,
    own,
    other,
    initrd,
    append,
    dir,
    qemu,
    console: console_,
    ssh,
    async waitFor(command, ready, boundMs) {
      const until = Date.now() + boundMs;
      let last = '';
      for (;;) {
        if (ended) throw new Error(`qemu ended: ${qemuErr}\nconsole:\n${console_().slice(-3000)}`);
        const r = ssh(command, 20_000);
        if (r.code === 0 && ready(r.stdout)) return r.stdout;
        last = r.code === 0 ? `answered: ${r.stdout.trim()}` : r.stderr.trim();
        if (Date.now() > until) throw new Error(`the box did not get ready within ${boundMs / 1000} s (last: ${last})\nconsole:\n${console_().slice(-3000)}`);
        await sleep(1000);
      }
    },
    async stop() {
      qemu.signal('SIGKILL');
      await qemu.exit.catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await box.waitFor('uname -r', (out) => out.trim() === own.release, opts.bootBoundMs ?? 180_000);
  } catch (err) {
    await box.stop();
    throw err;
  }
  return box;
}

/** `basename` of a box kernel's image, for messages. */
export const imageName = (k: BoxKernel): string => basename(k.image);

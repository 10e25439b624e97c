/**
 * A box's kernel configuration over real ssh (test/helpers/sshd.ts: a
 * throwaway sshd on 127.0.0.1, so the "box" is this machine). What comes
 * back is checked against the files read directly here. Where this machine
 * has no /proc/config.gz, that case skips; the /boot fallback and the
 * refusal run everywhere, with the candidate paths pointed at a temporary
 * directory (nothing is written to /boot).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { release } from 'node:os';
import { join } from 'node:path';
import { gzipSync, gunzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { UserError } from '../../src/errors.ts';
import { BOX_CONFIG_PATHS, boxConfigScript, fetchBoxConfig, parseBoxConfigOutput } from '../../src/kernel/box-config.ts';
import { parseSshUrl } from '../../src/targets/ssh-address.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { requireSsh, startSshd, type TestSshd } from '../helpers/sshd.ts';

const skip = requireSsh();
let sshd: TestSshd;
const dir = tempDir();

before(async () => {
  if (!skip) sshd = await startSshd();
});
after(async () => {
  await (sshd as TestSshd | undefined)?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const box = () => parseSshUrl(sshd.url, '--base');
const ssh = () => ({ configFile: sshd.config });

test("the box's /proc/config.gz comes back unpacked, with the box's kernel release", { skip: skip || (!existsSync('/proc/config.gz') && 'this machine has no /proc/config.gz (CONFIG_IKCONFIG_PROC)') }, async () => {
  const got = await fetchBoxConfig(box(), { ssh: ssh() });
  assert.equal(got.path, '/proc/config.gz');
  assert.equal(got.release, release());
  assert.equal(got.text, gunzipSync(readFileSync('/proc/config.gz')).toString('utf8'));
  assert.equal(got.modules, null);
});

test('without a readable first candidate, the configuration comes from /boot/config-<release> (here: a stand-in directory)', { skip }, async () => {
  const boot = join(dir, 'boot');
  mkdirSync(boot, { recursive: true });
  const text = '# stand-in\nCONFIG_64BIT=y\nCONFIG_EXT4_FS=m\n';
  writeFileSync(join(boot, `config-${release()}`), text);
  const got = await fetchBoxConfig(box(), { ssh: ssh(), paths: [join(dir, 'no such dir/config.gz'), join(boot, 'config-{release}')] });
  assert.deepEqual([got.path, got.release, got.text], [join(boot, `config-${release()}`), release(), text]);
});

test('a gzip candidate is unpacked here, so the box needs no gzip', { skip }, async () => {
  const text = 'CONFIG_64BIT=y\n# CONFIG_MODULES is not set\n';
  writeFileSync(join(dir, "it's.gz"), gzipSync(text));
  const got = await fetchBoxConfig(box(), { ssh: ssh(), paths: [join(dir, "it's.gz")] });
  assert.equal(got.text, text);
});

test('a box with neither path readable is refused naming both paths, its release and the fix', { skip }, async () => {
  const paths = [join(dir, 'none/config.gz'), join(dir, 'none/config-{release}')];
  await assert.rejects(fetchBoxConfig(box(), { ssh: ssh(), paths }), (e: unknown) => {
    assert.ok(e instanceof UserError);
    assert.equal(
      e.message,
      `--base ${sshd.url}: the box (kernel ${release()}) has neither ${paths[0]} nor ${join(dir, `none/config-${release()}`)} readable ` +
        "(its kernel was built without CONFIG_IKCONFIG_PROC, and its configuration is not in /boot); copy that kernel's configuration off the box and give it as --base FILE",
    );
    return true;
  });
});

test("with --localmodconfig the box's /proc/modules comes back too, or a box without module support is refused", { skip }, async () => {
  const paths = [join(dir, 'boot/config-{release}')];
  if (existsSync('/proc/modules')) {
    const got = await fetchBoxConfig(box(), { ssh: ssh(), paths, modules: true });
    // read in the same second: a module loaded in between would make this flaky, and nothing here loads one
    assert.equal(got.modules, readFileSync('/proc/modules', 'utf8'));
  } else {
    await assert.rejects(fetchBoxConfig(box(), { ssh: ssh(), paths, modules: true }), /--localmodconfig: the box's kernel .* has no \/proc\/modules .*drop --localmodconfig/);
  }
});

test('the default candidates are /proc/config.gz, then /boot/config-<release>', () => {
  assert.deepEqual(BOX_CONFIG_PATHS, ['/proc/config.gz', '/boot/config-{release}']);
  assert.match(boxConfigScript(BOX_CONFIG_PATHS), /if \[ -r \/boot\/config-"\$r" \]; then p=\/boot\/config-"\$r"; fi\nif \[ -r \/proc\/config.gz \]/);
});

test('an answer that is not a configuration is refused naming the path on the box', () => {
  const out = Buffer.from('hintlab-box-config release 6.1.0-9-amd64\nhintlab-box-config path /boot/config-6.1.0-9-amd64\nnot a config\n');
  assert.throws(() => parseBoxConfigOutput(out, 'ssh://lab@box1', BOX_CONFIG_PATHS), /--base ssh:\/\/lab@box1: \/boot\/config-6\.1\.0-9-amd64 on the box holds no CONFIG_ lines/);
});

test('--localmodconfig without a box or a module list, and --lsmod without --localmodconfig, are refused before anything is built', async () => {
  const src = join(dir, 'linux');
  mkdirSync(src, { recursive: true });
  writeFileSync(join(src, 'Makefile'), 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\nEXTRAVERSION =\n');
  const out = join(dir, 'out');
  const a = await runCli(['kernel', 'build', '--src', src, '--localmodconfig', '--out', out, '--label', 'A']);
  assert.equal(a.code, 2);
  assert.match(a.stderr, /--localmodconfig needs the modules the box has loaded: give --base ssh:\/\/\[user@\]host to read them from the box, or --lsmod FILE/);
  const b = await runCli(['kernel', 'build', '--src', src, '--lsmod', join(dir, 'x'), '--out', out, '--label', 'A']);
  assert.equal(b.code, 2);
  assert.match(b.stderr, /--lsmod is the module list of --localmodconfig; add --localmodconfig or drop --lsmod/);
  const c = await runCli(['kernel', 'build', '--src', src, '--base', 'ssh://box/etc', '--out', out, '--label', 'A']);
  assert.equal(c.code, 2);
  assert.match(c.stderr, /--base 'ssh:\/\/box\/etc': expected \[user@\]host\[:port\] after ssh:\/\/, with no path/);
  const d = await runCli(['kernel', 'build', '--src', src, '--base', 'ssh://box', '--out', out, '--label', 'my kernel']);
  assert.equal(d.code, 2);
  assert.match(d.stderr, /--label 'my kernel' becomes part of the kernel release \(-hintlab-<label>\)/);
  assert.equal(existsSync(out), false);
});

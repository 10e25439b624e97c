/**
 * `kernel build --from A`: what is refused (each differing input named with
 * its fix), and the copy of A's objects (A is only read, B's copy shares no
 * inode with it), on a small fake tree. The real 6.12 build is
 * test/kernel/incremental-6.12.test.ts (slow).
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { UserError } from '../../src/errors.ts';
import { fragmentText } from '../../src/kernel/config.ts';
import { touchesKconfig } from '../../src/kernel/configure.ts';
import { checkFrom, copyObjects, rebaseCommandFiles } from '../../src/kernel/incremental.ts';
import { gatherInputs, inputKey, sha256, type KernelBuildRequest } from '../../src/kernel/inputs.ts';
import { buildLayout, existingLayout } from '../../src/kernel/layout.ts';
import type { KernelManifest } from '../../src/kernel/manifest.ts';
import { linkCopy, treeFingerprint } from '../../src/kernel/source.ts';
import { runCli, tempDir } from '../helpers/cli.ts';

const root = tempDir();
after(() => rmSync(root, { recursive: true, force: true }));

function fakeTree(dir: string): string {
  const src = join(dir, 'linux');
  mkdirSync(join(src, 'kernel'), { recursive: true });
  writeFileSync(join(src, 'Makefile'), 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 57\nEXTRAVERSION =\n');
  writeFileSync(join(src, 'kernel/sys.c'), 'int getppid(void) { return 1; }\n');
  return src;
}

const CONFIG_A = 'CONFIG_64BIT=y\nCONFIG_PRINTK=y\n';

/** A finished build A of `src` as `kernel build` leaves it: manifest, image, objects with its .config. */
async function fakeBuildA(dir: string, src: string, over: Partial<KernelBuildRequest> = {}): Promise<{ a: string; req: KernelBuildRequest }> {
  const a = join(dir, 'A');
  const req: KernelBuildRequest = { src, patches: [], fragment: null, base: 'tinyconfig', opt: 'O2', out: a, label: 'A', jobs: 1, ...over };
  const i = await gatherInputs(req);
  const layout = buildLayout(a);
  mkdirSync(join(layout.obj, 'kernel'), { recursive: true });
  writeFileSync(join(layout.obj, '.config'), CONFIG_A);
  writeFileSync(join(layout.obj, 'kernel/sys.o'), 'object of A');
  writeFileSync(join(a, 'bzImage'), 'image of A');
  const manifest: KernelManifest = {
    schema: 1, label: 'A', image: 'bzImage',
    source: { dir: src, version: i.version, fingerprint: i.fingerprint },
    patches: [], base: i.baseDesc, opt: req.opt, fragmentSha256: sha256(fragmentText(i.fragment)), fragmentFile: req.fragment,
    configSha256: sha256(CONFIG_A), droppedOptions: [], compiler: i.compiler, inputKey: inputKey(i), buildSeconds: 1, builtAt: new Date(0).toISOString(),
  };
  writeFileSync(join(a, 'hintlab-kernel.json'), JSON.stringify(manifest));
  return { a, req };
}

function refusal(pattern: RegExp): (e: unknown) => boolean {
  return (e: unknown) => {
    assert.ok(e instanceof UserError, String(e));
    assert.equal(e.exitCode, 2);
    assert.match(e.message, pattern);
    return true;
  };
}

async function check(a: string, req: KernelBuildRequest) {
  const i = await gatherInputs(req);
  return checkFrom(a, req.out, i, { src: req.src, opt: req.opt, fragmentFile: req.fragment, modulesListSha256: i.modulesList === null ? null : sha256(i.modulesList) });
}

test('a B with all of A\'s inputs but its patches may start from A, and gets A\'s object directory', async () => {
  const dir = join(root, 'same');
  const src = fakeTree(dir);
  const { a, req } = await fakeBuildA(dir, src);
  const from = await check(a, { ...req, out: join(dir, 'B'), label: 'B' });
  assert.equal(from.obj, join(a, 'work/src/hintlab-obj'));
  assert.equal(from.manifest.label, 'A');
});

test('each input B does not share with A is refused by name, with the fix', async () => {
  const dir = join(root, 'differ');
  const src = fakeTree(dir);
  const fragment = join(dir, 'extra.config');
  writeFileSync(fragment, 'CONFIG_FUTEX=y\n');
  const { a, req } = await fakeBuildA(dir, src, { fragment });
  const b = { ...req, out: join(dir, 'B'), label: 'B' };
  await assert.rejects(check(a, { ...b, base: 'defconfig' }), refusal(/A was configured from --base tinyconfig, this build from defconfig; build B without --from \(a full build\), or give the same base as A/));
  await assert.rejects(check(a, { ...b, opt: 'Os' }), refusal(/A was built -O2, this build asks for -Os; .* give --opt O2/));
  await assert.rejects(check(a, { ...b, fragment: null }), refusal(new RegExp(`A was built with --config-fragment ${fragment}, and this build's fragment \\(none\\) is not the same`)));
  writeFileSync(fragment, 'CONFIG_FUTEX=y\nCONFIG_EPOLL=y\n');
  await assert.rejects(check(a, b), refusal(/A was built with --config-fragment .*extra\.config, and this build's fragment \(.*extra\.config\) is not the same; .*give A's fragment, unchanged/));
  writeFileSync(fragment, 'CONFIG_FUTEX=y\n');
  // the tree changes after A: a new mtime on one file
  const later = new Date(Date.now() + 5000);
  utimesSync(join(src, 'kernel/sys.c'), later, later);
  await assert.rejects(check(a, b), refusal(/tree fingerprint .* but --src .* now has .*\(the tree changed since A was built, or it is another tree\); .*build A again from this tree/));
});

test('a different compiler and a changed module list are refused, naming what A used', async () => {
  const dir = join(root, 'compiler');
  const src = fakeTree(dir);
  const { a, req } = await fakeBuildA(dir, src);
  const path = join(a, 'hintlab-kernel.json');
  const m = JSON.parse(readFileSync(path, 'utf8')) as KernelManifest;
  writeFileSync(path, JSON.stringify({ ...m, compiler: 'gcc (Debian 11.3.0-1) 11.3.0' }));
  await assert.rejects(check(a, { ...req, out: join(dir, 'B') }), refusal(/A was compiled by gcc \(Debian 11\.3\.0-1\) 11\.3\.0, this build would use gcc/));
  writeFileSync(path, JSON.stringify({ ...m, modules: 'local-builtin', modulesListSha256: sha256('ext4 1 0 - Live 0x0\n') }));
  const lsmod = join(dir, 'lsmod');
  writeFileSync(lsmod, 'Module                  Size  Used by\nnvme 1 0\n');
  await assert.rejects(
    check(a, { ...req, out: join(dir, 'B'), localmodconfig: true, lsmod }),
    refusal(new RegExp(`module list for --localmodconfig differs from A's .*--lsmod ${a}/modules-list`)),
  );
});

test('an unfinished, legacy, tampered or overlapping A is refused, saying why and what to do', async () => {
  const dir = join(root, 'broken');
  const src = fakeTree(dir);
  const { a, req } = await fakeBuildA(dir, src);
  const b = { ...req, out: join(dir, 'B') };
  await assert.rejects(check(a, { ...b, out: a }), refusal(/is the --out directory itself; B gets its own --out/));
  await assert.rejects(check(a, { ...b, out: join(a, 'B') }), refusal(/inside one another; give B an --out beside A/));
  await assert.rejects(check(join(dir, 'nothing'), b), refusal(/has no hintlab-kernel\.json, so it is not a finished build .*build A first/));
  writeFileSync(join(a, 'work/src/hintlab-obj/.config'), `${CONFIG_A}CONFIG_FUTEX=y\n`);
  await assert.rejects(check(a, b), refusal(/A's object directory was changed after A was built/));
  rmSync(join(a, 'work/src/hintlab-obj'), { recursive: true });
  await assert.rejects(check(a, b), refusal(/A's objects \(.*hintlab-obj\) are gone/));
  mkdirSync(join(a, 'work/obj'), { recursive: true });
  await assert.rejects(check(a, b), refusal(/built by an earlier hintlab, whose object directory \(work\/obj\) has absolute paths/));
});

test('--from is refused on the command line with exit status 2 before anything is written', async () => {
  const dir = join(root, 'cli');
  const src = fakeTree(dir);
  const { a } = await fakeBuildA(dir, src);
  const r = await runCli(['kernel', 'build', '--src', src, '--from', a, '--opt', 'Os', '--out', join(dir, 'B'), '--label', 'B']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--from .*A: A was built -O2, this build asks for -Os/);
  assert.throws(() => statSync(join(dir, 'B')), 'the refused build wrote its --out');
});

test("the copy of A's objects shares no inode with A, and writing it leaves A as it was", async () => {
  const dir = join(root, 'copy');
  const aObj = join(dir, 'A/work/src/hintlab-obj');
  mkdirSync(join(aObj, 'kernel'), { recursive: true });
  writeFileSync(join(aObj, 'kernel/sys.o'), 'object of A');
  writeFileSync(join(aObj, '.config'), CONFIG_A);
  const old = new Date('2024-01-01T00:00:00Z');
  utimesSync(join(aObj, 'kernel/sys.o'), old, old);
  const before = treeFingerprint(join(dir, 'A'));
  const bObj = join(dir, 'B/work/src/hintlab-obj');
  mkdirSync(join(dir, 'B/work/src'), { recursive: true });
  await copyObjects(aObj, bObj, new AbortController().signal);
  assert.equal(readFileSync(join(bObj, 'kernel/sys.o'), 'utf8'), 'object of A');
  // mtimes kept: make must see the copied objects as up to date
  assert.equal(statSync(join(bObj, 'kernel/sys.o')).mtimeMs, old.getTime());
  assert.notEqual(statSync(join(bObj, 'kernel/sys.o')).ino, statSync(join(aObj, 'kernel/sys.o')).ino);
  writeFileSync(join(bObj, 'kernel/sys.o'), 'object of B');
  assert.equal(readFileSync(join(aObj, 'kernel/sys.o'), 'utf8'), 'object of A');
  assert.equal(treeFingerprint(join(dir, 'A')), before);
  assert.throws(() => statSync(`${bObj}.partial`));
  await assert.rejects(copyObjects(join(dir, 'missing'), bObj, new AbortController().signal), (e: unknown) => e instanceof UserError && /cannot copy .*missing.*No such file/.test(e.message));
});

test('an interrupted copy of the objects leaves neither the copy nor its temporary behind', async () => {
  const dir = join(root, 'abort');
  const aObj = join(dir, 'A/obj');
  mkdirSync(aObj, { recursive: true });
  writeFileSync(join(aObj, 'vmlinux.o'), 'object of A');
  const bObj = join(dir, 'B/obj');
  mkdirSync(join(dir, 'B'));
  const abort = new AbortController();
  abort.abort();
  await assert.rejects(copyObjects(aObj, bObj, abort.signal), (e: unknown) => e instanceof UserError && e.exitCode === 130 && /interrupted while copying/.test(e.message));
  assert.throws(() => statSync(bObj));
  assert.throws(() => statSync(`${bObj}.partial`));
  assert.equal(readFileSync(join(aObj, 'vmlinux.o'), 'utf8'), 'object of A');
});

test("A's absolute work directory in the host tools' .cmd files becomes B's; kbuild's relative ones are left alone", () => {
  const dir = join(root, 'rebase');
  const obj = join(dir, 'B/work/src/hintlab-obj');
  mkdirSync(join(obj, 'tools/objtool'), { recursive: true });
  mkdirSync(join(obj, 'kernel'), { recursive: true });
  const aWork = '/builds/A/work';
  const tool = join(obj, 'tools/objtool/.weak.o.cmd');
  writeFileSync(tool, `cmd_${aWork}/src/hintlab-obj/tools/objtool/weak.o := gcc -I${aWork}/src/tools/include -o ${aWork}/src/hintlab-obj/tools/objtool/weak.o weak.c\n`);
  const kbuild = join(obj, 'kernel/.sys.o.cmd');
  const kbuildText = 'savedcmd_kernel/sys.o := gcc -I../include -c -o kernel/sys.o ../kernel/sys.c\n';
  writeFileSync(kbuild, kbuildText);
  const old = new Date('2024-01-01T00:00:00Z');
  utimesSync(tool, old, old);
  assert.equal(rebaseCommandFiles(obj, aWork, join(dir, 'B/work')), 1);
  const bWork = join(dir, 'B/work');
  assert.equal(readFileSync(tool, 'utf8'), `cmd_${bWork}/src/hintlab-obj/tools/objtool/weak.o := gcc -I${bWork}/src/tools/include -o ${bWork}/src/hintlab-obj/tools/objtool/weak.o weak.c\n`);
  assert.equal(statSync(tool).mtimeMs, old.getTime());
  assert.equal(readFileSync(kbuild, 'utf8'), kbuildText);
});

test('the object directory inside the tree copy survives a fresh copy of the tree; a same-named directory of the user\'s tree is not copied', () => {
  const dir = join(root, 'keep');
  const src = fakeTree(dir);
  mkdirSync(join(src, 'hintlab-obj'));
  writeFileSync(join(src, 'hintlab-obj/stray.o'), 'the user\'s');
  const layout = buildLayout(join(dir, 'out'));
  mkdirSync(layout.work, { recursive: true });
  linkCopy(src, layout.tree, [], 'hintlab-obj');
  assert.throws(() => statSync(join(layout.obj, 'stray.o')));
  mkdirSync(layout.obj, { recursive: true });
  writeFileSync(join(layout.obj, 'vmlinux.o'), 'kept');
  writeFileSync(join(src, 'kernel/new.c'), 'int y;\n');
  linkCopy(src, layout.tree, [], 'hintlab-obj');
  assert.equal(readFileSync(join(layout.obj, 'vmlinux.o'), 'utf8'), 'kept');
  assert.equal(readFileSync(join(layout.tree, 'kernel/new.c'), 'utf8'), 'int y;\n');
  assert.equal(readFileSync(join(src, 'hintlab-obj/stray.o'), 'utf8'), 'the user\'s');
});

test('a build directory of the earlier layout is read as such: objects in work/obj beside the tree', () => {
  const dir = join(root, 'legacy');
  mkdirSync(join(dir, 'work/obj'), { recursive: true });
  mkdirSync(join(dir, 'work/src'), { recursive: true });
  assert.deepEqual(existingLayout(dir), { work: join(dir, 'work'), tree: join(dir, 'work/src'), obj: join(dir, 'work/obj'), legacy: true });
  mkdirSync(join(dir, 'work/src/hintlab-obj'));
  assert.equal(existingLayout(dir).legacy, false);
});

test('only patches to Kconfig files, configs/ fragments or kconfig itself make a configuration step rerun', () => {
  assert.equal(touchesKconfig(['kernel/sched/syscalls.c', 'include/linux/sched.h', 'kernel/Makefile']), false);
  assert.equal(touchesKconfig(['kernel/Kconfig.preempt']), true);
  assert.equal(touchesKconfig(['init/Kconfig']), true);
  assert.equal(touchesKconfig(['arch/x86/configs/tiny.config']), true);
  assert.equal(touchesKconfig(['scripts/kconfig/conf.c']), true);
});

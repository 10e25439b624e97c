/**
 * The caches under ~/.cache (native binaries, initramfs images) are written
 * through temporary files no one else can plant: a symlink or a directory
 * at the name an earlier hintlab used (`FILE.tmp-PID`) is never followed
 * and stops nothing.
 */
import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { test } from 'node:test';
import { compileCached } from '../../src/proc/native.ts';
import { initramfsFile } from '../../src/targets/guest.ts';
import { tempDir } from '../helpers/cli.ts';
import { requireTool } from '../helpers/tools.ts';

function victim(dir: string): string {
  const path = join(dir, 'root-only');
  writeFileSync(path, 'secret\n', { mode: 0o600 });
  return path;
}

test('a native build is not stopped by a name planted at BINARY.tmp-PID in the cache, and never writes through it', { skip: requireTool('gcc', 'gcc') }, () => {
  const dir = tempDir();
  const sources = join(dir, 'c');
  mkdirSync(sources);
  writeFileSync(join(sources, 'main.c'), 'int main(void) { return 0; }\n');
  const spec = (cacheDir: string) => ({ what: 'a test program', sourceDir: sources, binary: 'prog', cc: 'gcc', flags: ['-O0'], cacheDir });
  const first = compileCached(spec(join(dir, 'cache1')));
  const cache = join(dir, 'cache2');
  // the linker unlinks a symlink at its output name, but a directory there stopped the build
  mkdirSync(join(cache, first.buildId, `prog.tmp-${process.pid}`), { recursive: true });
  writeFileSync(join(cache, first.buildId, `prog.tmp-${process.pid}`, 'kept'), 'planted\n');
  const built = compileCached(spec(cache));
  assert.ok(lstatSync(built.path).isFile());
  assert.equal(statSync(built.path).mode & 0o111, 0o111, 'the binary is executable');
  assert.equal(readFileSync(join(cache, first.buildId, `prog.tmp-${process.pid}`, 'kept'), 'utf8'), 'planted\n', 'what was planted is left alone');
});

test('an initramfs image does not go through a symlink planted at IMAGE.tmp-PID in its cache', () => {
  const dir = tempDir();
  const probe = join(dir, 'probe');
  writeFileSync(probe, 'not really a probe');
  const image = basename(initramfsFile({ path: probe }, ['--ops', '1'], join(dir, 'cache1')));
  const cache = join(dir, 'cache2');
  mkdirSync(cache);
  const target = victim(dir);
  symlinkSync(target, join(cache, `${image}.tmp-${process.pid}`));
  const path = initramfsFile({ path: probe }, ['--ops', '1'], cache);
  assert.equal(dirname(path), cache);
  assert.equal(readFileSync(target, 'utf8'), 'secret\n', 'the link target is untouched');
  assert.ok(lstatSync(path).isFile());
  assert.equal(readFileSync(path)[0], 0x1f, 'the image is a gzip file');
});

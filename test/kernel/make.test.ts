/** kbuild runner pieces against the real make and gcc. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { errorLines, runMake } from '../../src/kernel/make.ts';
import { tempDir } from '../helpers/cli.ts';
import { requireTool } from '../helpers/tools.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

test("a failed build's log yields gcc's error line and the source line it quotes, not the rest", () => {
  const src = join(dir, 'broken.c');
  writeFileSync(src, 'int f(void)\n{\n\treturn undeclared_thing;\n}\n');
  const cc = spawnSync('gcc', ['-c', src, '-o', join(dir, 'broken.o')], { encoding: 'utf8' });
  const log = join(dir, 'build.log');
  writeFileSync(log, `  CC      kernel/ok.o\n  CC      broken.o\n${cc.stderr}make[1]: *** [broken.o] Error 1\n`);
  const lines = errorLines(log);
  assert.ok(lines.some((l) => /broken\.c:3:\d+: error: .undeclared_thing. undeclared/.test(l)), lines.join('\n'));
  assert.ok(lines.some((l) => /\|\s+return undeclared_thing;/.test(l)), lines.join('\n'));
  assert.ok(lines.some((l) => l.startsWith('make[1]: ***')));
  assert.ok(!lines.some((l) => l.includes('CC      kernel/ok.o')));
});

test('make output goes to the log and compiled objects are counted from kbuild lines', async () => {
  writeFileSync(join(dir, 'Makefile'), 'all:\n\t@echo "  CC      a.o"\n\t@echo "  CC      b/c.o"\n\t@echo "  LD      vmlinux"\n');
  const log = join(dir, 'ok.log');
  writeFileSync(log, '');
  const seen: string[] = [];
  const r = await runMake({ args: ['-C', dir, 'all'], log, abort: new AbortController().signal, onCompiled: (n, o) => seen.push(`${n}:${o}`) });
  assert.deepEqual(r, { state: 'ok', compiled: 2 });
  assert.deepEqual(seen, ['1:a.o', '2:b/c.o']);
  assert.match(readFileSync(log, 'utf8'), /LD {6}vmlinux/);
});

test('compiled objects are counted for the manifest when nobody listens to the progress', async () => {
  writeFileSync(join(dir, 'Makefile'), 'all:\n\t@echo "  CC      a.o"\n\t@echo "  CC      b/c.o"\n\t@echo "  CC      d.o"\n');
  const log = join(dir, 'quiet.log');
  writeFileSync(log, '');
  assert.deepEqual(await runMake({ args: ['-C', dir, 'all'], log, abort: new AbortController().signal }), { state: 'ok', compiled: 3 });
});

test('an abort kills make and everything it started', { skip: requireTool('pgrep', 'procps') }, async () => {
  const marker = `hintlab-abort-test-${process.pid}`;
  writeFileSync(join(dir, 'Makefile.slow'), `all:\n\tsleep 30 ; echo ${marker}\n`);
  const abort = new AbortController();
  setTimeout(() => abort.abort(), 300);
  const started = Date.now();
  const r = await runMake({ args: ['-C', dir, '-f', 'Makefile.slow'], log: join(dir, 'slow.log'), abort: abort.signal });
  assert.deepEqual(r, { state: 'aborted' });
  assert.ok(Date.now() - started < 10_000);
  const left = spawnSync('pgrep', ['-f', `sleep 30 ; echo ${marker}`], { encoding: 'utf8' });
  assert.equal(left.stdout.trim(), '', 'a process of the aborted build is still running');
});

/**
 * The probe's --dump-gcov and --exec, run on the host against a temporary
 * directory of fake .gcda files: the walk, the whole-file reads and the
 * framing are the same code that runs as the guest's /init.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { buildProbe } from '../../../src/launch/probe-build.ts';
import { CoverageSession } from '../../../src/hints/collect/session.ts';
import { tempDir } from '../../helpers/cli.ts';

const dir = tempDir('hintlab-gcda-');
after(() => rmSync(dir, { recursive: true, force: true }));
const probe = buildProbe();

function runProbe(args: string[]): { code: number | null; lines: string[] } {
  const r = spawnSync(probe.path, args, { encoding: 'latin1', maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, lines: r.stdout.split('\n').filter(Boolean) };
}

function feed(lines: string[]): CoverageSession {
  const s = new CoverageSession();
  for (const l of lines) s.feed(l);
  return s;
}

// 100 000 bytes: 196 chunks, the last one partial; every byte value appears
const large = Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 31 + (i >> 8)) & 0xff));
mkdirSync(join(dir, 'obj/kernel/sched'), { recursive: true });
mkdirSync(join(dir, 'obj/fs'), { recursive: true });
writeFileSync(join(dir, 'obj/kernel/sched/build_policy.gcda'), large);
writeFileSync(join(dir, 'obj/fs/select.gcda'), 'adcg');
writeFileSync(join(dir, 'obj/fs/empty.gcda'), '');
writeFileSync(join(dir, 'obj/fs/select.gcno'), 'not sent');
writeFileSync(join(dir, 'obj/fs/name with space=#%.gcda'), 'odd name');
// debugfs holds the .gcno entries as symlinks; a symlinked .gcda must not be sent twice either
symlinkSync(join(dir, 'obj/fs/select.gcda'), join(dir, 'obj/fs/link.gcda'));

test('--dump-gcov sends every .gcda under the directory, whole, in name order, and nothing else', () => {
  const r = runProbe(['--dump-gcov', join(dir, 'obj')]);
  assert.equal(r.code, 0);
  const s = feed(r.lines);
  assert.equal(s.problem(), null);
  const out = s.receiver.outcome();
  assert.equal(out.state, 'complete');
  assert.deepEqual(
    out.files.map((f) => f.guestPath.slice(dir.length)),
    ['/obj/fs/empty.gcda', '/obj/fs/name with space=#%.gcda', '/obj/fs/select.gcda', '/obj/kernel/sched/build_policy.gcda'],
  );
  assert.deepEqual(out.files.map((f) => f.data.length), [0, 8, 4, 100_000]);
  assert.ok(out.files[3]!.data.equals(large));
  assert.equal(out.files[2]!.data.toString(), 'adcg');
  assert.equal(out.bytes, 100_012);
});

test('every line the dump writes stays under 1 KiB', () => {
  const r = runProbe(['--dump-gcov', join(dir, 'obj')]);
  const longest = Math.max(...r.lines.map((l) => l.length));
  assert.ok(longest < 1024, `longest line ${longest} bytes`);
  // 196 chunks of the large file, one each for select.gcda and the odd name, none for the empty file
  assert.equal(r.lines.filter((l) => l.startsWith('@hl1 chunk ')).length, 196 + 1 + 1);
});

test('a directory that cannot be read is an error line and exit status 3', () => {
  const r = runProbe(['--dump-gcov', join(dir, 'missing')]);
  assert.equal(r.code, 3);
  assert.match(feed(r.lines).problem() ?? '', /stage dump-gcov: errno 2 \(.*missing\)/);
});

test('--exec runs the program before the dump and reports its exit status', () => {
  const ok = runProbe(['--exec', '/bin/true', '--dump-gcov', join(dir, 'obj/fs')]);
  assert.ok(ok.lines.some((l) => l.startsWith('@hl1 exec path=/bin/true status=0 ')));
  assert.equal(feed(ok.lines).problem(), null);
  const bad = runProbe(['--exec', '/bin/false', '--dump-gcov', join(dir, 'obj/fs')]);
  assert.match(feed(bad.lines).problem() ?? '', /the workload program exited with status 1/);
});

test('--reset-gcov without --dump-gcov is refused as a bad argument', () => {
  const r = runProbe(['--exec', '/bin/true', '--reset-gcov']);
  assert.equal(r.code, 2);
});

test('--reset-gcov writes the reset file of the gcov directory before the workload', () => {
  writeFileSync(join(dir, 'obj/reset'), '');
  const r = runProbe(['--exec', '/bin/true', '--reset-gcov', '--dump-gcov', join(dir, 'obj')]);
  assert.equal(r.code, 0);
  assert.equal(spawnSync('cat', [join(dir, 'obj/reset')], { encoding: 'utf8' }).stdout, '1\n');
});

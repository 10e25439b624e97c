/**
 * `hintlab vm --target fake://...` end to end in-process: the same flag,
 * place parser, factory and boot scheduler as qemu and LAVA, on a guest
 * that answers the probe with exact instruction counts and boots nothing.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { ProbeBuild } from '../../src/launch/probe-build.ts';
import { Store } from '../../src/store/store.ts';
import { bzImageStub, runCli, tempDir } from '../helpers/cli.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));
const image = bzImageStub(dir);
// the fake guest runs no probe: this build is only recorded with the runs
const probe: ProbeBuild = { path: join(dir, 'probe'), static: true, buildId: 'feedfacefeedface', compiler: 'cc', compilerVersion: 'cc 12', flags: ['-static'] };
const services = { probeBuild: probe };

const vmArgs = (db: string, ...more: string[]) => ['vm', '--kernel', `A=${image}`, '--kernel', `B=${image}`, '-p', 'getppid', '--ops', '1000', '--warmups', '1', '--rounds', '5', '--db', db, ...more];

test('vm on fake:// stores every boot with the exact instructions per call its address names, and compare claims the change', async () => {
  const db = join(dir, 'repeat.db');
  const r = await runCli(vmArgs(db, '--target', 'fake://B=1020', '--icount', '--repeat', '3'), { services });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /accelerator: tcg \(a fake guest: nothing is emulated or timed\)/);
  assert.match(r.stdout, /compare with: hintlab compare vm-A vm-B/);
  const store = Store.open(db);
  try {
    const a = store.resolveRun('vm-A');
    const b = store.resolveRun('vm-B');
    assert.equal(a.unit, 'instructions/call');
    // round i of boot k (0-based): 1000 calls x N instructions, plus (i mod 5) + k over the whole round
    const measured = (run: typeof a) => run.rounds.filter((x) => !x.warmup).map((x) => x.total);
    assert.deepEqual(measured(a), [0, 1, 2].flatMap((k) => [0, 1, 2, 3, 4].map((i) => 1_000_000 + i + k)));
    assert.deepEqual(measured(b), [0, 1, 2].flatMap((k) => [0, 1, 2, 3, 4].map((i) => 1_020_000 + i + k)));
  } finally {
    store.close();
  }
  const c = await runCli(['compare', 'vm-A', 'vm-B', '--db', db]);
  assert.equal(c.code, 0, c.stderr);
  assert.match(c.stdout, /getppid .*\+20 instr \(\+2\.0+ %\).*more instructions/);
});

test('vm on fake:// boots in the order given, one run per boot, each kernel at the default 1000 instructions per call unless named (a second boot one instruction per round more)', async () => {
  const db = join(dir, 'order.db');
  const r = await runCli(vmArgs(db, '--target', 'fake://', '--icount', '--order', 'ABA'), { services });
  assert.equal(r.code, 0, r.stderr);
  const store = Store.open(db);
  try {
    assert.deepEqual(['vm-A-1', 'vm-B-1', 'vm-A-2'].map((l) => store.resolveRun(l).rounds.find((x) => !x.warmup)?.total), [1_000_000, 1_000_000, 1_000_001]);
  } finally {
    store.close();
  }
});

test('vm refuses what a fake guest cannot run from the flags alone, with exit status 2 and nothing stored', async () => {
  const db = join(dir, 'refused.db');
  const cases: [string[], RegExp][] = [
    [['--target', 'fake://', '--macro', '--stressor', 'cpu'], /--macro does not run on a fake guest yet; drop --target or --macro/],
    [['--target', 'fake://', '--cost'], /--cost needs hintlab's qemu plugin on this machine; it does not run on a fake guest: drop --cost or --target/],
    [['--target', 'fake://', '--resume'], /--resume continues an order on a LAVA lab/],
    [['--target', 'fake://A=zero'], /'A=zero' is not LABEL=N/],
  ];
  for (const [more, re] of cases) {
    const r = await runCli(vmArgs(db, ...more), { services });
    assert.equal(r.code, 2, `${more.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
  }
});

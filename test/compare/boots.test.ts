/** `hintlab compare` with several vm boots per side: each boot is its own run and one unit. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { compare } from '../../src/compare/compare.ts';
import { Store } from '../../src/store/store.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { hostEnvironment, makeRun, storeRun } from './fixtures.ts';

/** Busy-waits `ms` milliseconds, so that runs stored one after the other get distinct times. */
function waitMs(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // the store stamps rounds with the time of day in milliseconds
  }
}

/** One boot's rounds: icount-like, 0.01 % between rounds, `offset` x 0.001 % between boots. */
const boot = (base: number, offset: number) => Array.from({ length: 5 }, (_, i) => base * (1 + offset / 1e5) * (1 + 1e-4 * Math.sin(3 * i + offset)));

describe('hintlab compare with boots as units', () => {
  let dir = '';
  let db = '';
  before(() => {
    dir = tempDir();
    db = join(dir, 'results.db');
    const store = Store.open(db);
    const vm = (label: string, release: string, base: number, offset: number, unit: 'instructions/call' | 'ns/call' = 'instructions/call') =>
      storeRun(store, makeRun({ id: 0, label, kind: 'vm', unit, values: { getppid: boot(base, offset) }, units: 1, environment: hostEnvironment({ release }) }));
    // interleaved in time, as vm --order A,B,A,B,A,B boots them; the rounds' times order the boots
    [0, 1, -1].forEach((o, i) => {
      vm(`vm-A-${i + 1}`, '6.12.9', 1800, o);
      waitMs(3);
      vm(`vm-B-${i + 1}`, '6.12.9-hl', 1818, [1, -1, 0][i]!);
      waitMs(3);
    });
    // the same kernels booted in blocks, three of A then three of B: timed (vm --kvm) and counted (-icount)
    for (const [prefix, unit] of [['blk', 'ns/call'], ['cnt', 'instructions/call']] as const) {
      [0, 1, -1].forEach((o, i) => {
        vm(`${prefix}-A-${i + 1}`, '6.12.9', 1800, o, unit);
        waitMs(3);
      });
      [1, -1, 0].forEach((o, i) => {
        vm(`${prefix}-B-${i + 1}`, '6.12.9-hl', 1818, o, unit);
        waitMs(3);
      });
    }
    store.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('finds a 1 % instruction change with 3 boots per kernel given together', async () => {
    const r = await runCli(['compare', 'vm-A-1,vm-A-2,vm-A-3', 'vm-B-1,vm-B-2,vm-B-3', '--threshold', '0.1%', '--db', db, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { subjects: { verdict: { verdict: string }; runs: { units: number }[] }[]; runs: { label: string }[] };
    assert.equal(doc.subjects[0]!.verdict.verdict, 'more instructions');
    assert.deepEqual(doc.subjects[0]!.runs.map((x) => x.units), [3, 3]);
    assert.equal(doc.runs[0]!.label, 'vm-A-1,vm-A-2,vm-A-3');
  });

  it('claims nothing from timed boots in blocks, saying to interleave them', async () => {
    const r = await runCli(['compare', 'blk-A-1,blk-A-2,blk-A-3', 'blk-B-1,blk-B-2,blk-B-3', '--threshold', '0.1%', '--db', db]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /in blocks \(A A A B B B\): no claim/);
    assert.match(r.stdout, /verdict: no difference proven: the boots ran in blocks \(A A A B B B\).*as interleaved boots it would read 'slower'.*interleave ABAB/);
  });

  it('judges boots counted under -icount on the boots even in blocks, since a host session cannot shift a count', async () => {
    const r = await runCli(['compare', 'cnt-A-1,cnt-A-2,cnt-A-3', 'cnt-B-1,cnt-B-2,cnt-B-3', '--threshold', '0.1%', '--db', db]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /in blocks \(A A A B B B\), counted under -icount, which a host session's shift does not move: every boot a unit/);
    assert.match(r.stdout, /verdict: more instructions/);
  });

  it('says how many boots to add when each side is a single boot', async () => {
    const r = await runCli(['compare', 'vm-A-1', 'vm-B-1', '--db', db]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /verdict: insufficient units: A has 1 boot and B has 1 boot; a claim needs at least 3 per run/);
    assert.match(r.stdout, /boot each kernel 3 or more times/);
  });

  it('refuses boots of two kernels given as one side', async () => {
    const r = await runCli(['compare', 'vm-A-1,vm-B-1', 'vm-B-2', '--db', db]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /kernel: run 1 'vm-A-1' = 6\.12\.9, run 2 'vm-B-1' = 6\.12\.9-hl: runs given together as one side must measure the same configuration/);
  });
});

describe('boots with A2', () => {
  it('every unit a boot: B is judged against the pooled boots of A and A2 by Welch, and the design says boots', () => {
    // two rounds per boot, 0.01 % apart (compare needs 5 rounds per run)
    const boot = (id: number, v: number[]) => makeRun({ id, kind: 'vm', design: 'separate', values: { getppid: v.flatMap((x) => [x, x * 1.0001]) }, units: v.length });
    const cmp = compare({ a: boot(1, [100, 101, 99]), b: boot(2, [110, 111, 109]), a2: boot(3, [100.5, 99.5, 100]) });
    assert.equal(cmp.design.kind, 'boots');
    const s = cmp.subjects[0]!;
    assert.equal(s.judgedOn, 'B vs A+A2');
    assert.ok(s.drift.kind === 'measured' && s.drift.vsPooled.test.kind === 'ok' && s.drift.vsPooled.test.method === 'welch');
    // Welch on 6 baseline boots against 3: about 100 vs 110, +10 %, far beyond the threshold.
    assert.equal(s.verdict.verdict, 'slower');
  });
});

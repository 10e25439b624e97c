/**
 * Disk full on one side of a paired design (two probe processes: turns,
 * duet): the other side is stopped and has ended before the failure is
 * told, so nothing writes to the store after the command closed it, and
 * the user reads the one disk-full message.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ProbeBuild } from '../../src/launch/probe-build.ts';
import { runInterleaved } from '../../src/bench/interleave.ts';
import type { InterleavedRequest } from '../../src/bench/sides.ts';
import { selectProfiles } from '../../src/bench/profiles.ts';
import { Store, StoreError } from '../../src/store/store.ts';
import { frameLine } from '../../src/launch/probe-protocol.ts';
import type { Target, TargetExit } from '../../src/targets/target.ts';
import { fakeSys } from '../environment/fake-sys.ts';
import { tempDir } from '../helpers/cli.ts';

const probe: ProbeBuild = { path: '/nonexistent', static: false, buildId: 'b1', compiler: 'cc', compilerVersion: 'cc 12', flags: ['-O2'] };

function request(design: 'alternation' | 'duet'): InterleavedRequest {
  return {
    profiles: selectProfiles(['getppid']),
    ops: 1000,
    warmups: 2,
    warmupsAsked: true,
    rounds: 15,
    processes: 1,
    cpu: null,
    a: { label: 'A', injectSeccomp: null },
    b: { label: 'B', injectSeccomp: 64 },
    files: [],
    design,
    seed: 3,
    budget: { secondsPerProfile: 3600, precisionPct: null, blockRounds: 2, alpha: 0.05 },
    command: 'hintlab bench --inject-seccomp-b 64',
    hintlabVersion: 'test',
  };
}

/** A store whose writes of run #1's rounds fail as on a full disk; everything else is the real store. */
function fullForRunA(store: Store): Store {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'addRound') {
        return (runId: number, round: Parameters<Store['addRound']>[1]) => {
          if (runId === 1) throw new StoreError(target.path, Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }), `storing round ${round.seq + 1} of run #1 (A)`);
          target.addRound(runId, round);
        };
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const exited = (code: number): TargetExit => ({ end: { kind: 'exited', code, signal: null }, outputTail: [], stderrTail: [], elapsedMs: 0, collected: new Map(), describe: (w) => w });

/**
 * A's probe prints a warm-up round at once (which cannot be stored); B's
 * prints its hello, then waits until it is stopped or until the test lets
 * it go on, and then prints a warm-up round. `late` keeps what feeding that
 * round threw.
 */
function twoProbes() {
  let release: () => void = () => {};
  const released = new Promise<void>((r) => (release = r));
  const seen = { bStopped: false, bEnded: false, late: null as unknown };
  const hello = frameLine('@hl1 hello proto=1 kernel=6.12.0 version=x machine=x86_64 pid1=0');
  const warm = frameLine('@hl1 round profile=getppid idx=0 warmup=1 ops=1000 elapsed=999000 cpu=1');
  const target: Target = {
    kind: 'host',
    name: 'scripted target',
    async run(job, onLine, abort) {
      onLine(hello);
      if (!job.args.includes('--inject-seccomp')) {
        onLine(warm);
        return abort.aborted ? { ...exited(130), end: { kind: 'aborted' } } : exited(0);
      }
      await Promise.race([released, new Promise((r) => abort.addEventListener('abort', r, { once: true }))]);
      seen.bStopped = abort.aborted;
      try {
        if (!abort.aborted) onLine(warm);
      } catch (err) {
        seen.late = err;
      }
      seen.bEnded = true;
      return abort.aborted ? { ...exited(130), end: { kind: 'aborted' } } : exited(0);
    },
    reader: async () => fakeSys(),
    async close() {},
  };
  return { target, seen, release };
}

for (const design of ['alternation', 'duet'] as const) {
  test(`disk full on A in a ${design} of two processes stops B and waits for it before the failure is thrown; B is marked failed`, async () => {
    const store = Store.open(join(tempDir(), 'h.db'));
    const { target, seen, release } = twoProbes();
    const err = await runInterleaved(request(design), { store: fullForRunA(store), target, probe, reader: fakeSys() }).catch((e: unknown) => e);
    const endedBeforeThrow = seen.bEnded;
    // what the command does next: close the store; a B still running would now write to it
    store.close();
    release();
    await new Promise((r) => setImmediate(r));
    assert.ok(err instanceof StoreError, String(err));
    assert.match(err.message, /^disk full while storing round 1 of run #1 \(A\): free space on .*\nrun #1 \(A\) keeps its 0 committed measured rounds and is marked failed$/);
    assert.equal(endedBeforeThrow, true, 'B had ended when the failure was thrown');
    assert.equal(seen.bStopped, true, 'B was stopped, not left to run');
    assert.equal(seen.late, null, `nothing wrote after the store was closed: ${String(seen.late)}`);
    const check = Store.openExisting(store.path);
    const [a, b] = [check.getRun(1), check.getRun(2)];
    check.close();
    assert.equal(a.status, 'failed');
    assert.equal(b.status, 'failed');
    assert.match(b.error ?? '', /^stopped with its interleaved partner A \(run #1\)/);
  });
}

test('disk full on A in an alternation in one process: B, filled by the same process, is marked failed with A, and the switched file is restored', async () => {
  const dir = tempDir();
  const knob = join(dir, 'knob');
  writeFileSync(knob, '0\n');
  const store = Store.open(join(dir, 'h.db'));
  const { target } = twoProbes();
  const req = { ...request('alternation'), b: { label: 'B', injectSeccomp: null }, files: [{ path: knob, valueB: '1', valueA: null }] };
  const err = await runInterleaved(req, { store: fullForRunA(store), target, probe, reader: fakeSys() }).catch((e: unknown) => e);
  assert.ok(err instanceof StoreError, String(err));
  assert.match(err.message, /^disk full while storing round 1 of run #1 \(A\): free space on .*\nrun #1 \(A\) keeps its 0 committed measured rounds and is marked failed$/);
  const [a, b] = [store.getRun(1), store.getRun(2)];
  store.close();
  assert.deepEqual([a.status, b.status], ['failed', 'failed']);
  assert.match(b.error ?? '', /^stopped with its interleaved partner A \(run #1\): a round could not be stored$/);
  assert.equal(readFileSync(knob, 'utf8'), '0\n');
});

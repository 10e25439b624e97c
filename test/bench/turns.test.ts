/**
 * Alternation in two processes (src/bench/turns.ts): which process runs the
 * next block, when a generation of processes ends, and a real invocation's
 * stored pairs.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { AlternationSession, alternationOrder, type GoFifo } from '../../src/bench/alternation.ts';
import { frameLine } from '../../src/launch/probe-protocol.ts';
import type { SideRun } from '../../src/bench/sides.ts';
import { Turns } from '../../src/bench/turns.ts';
import { startOrder } from '../../src/bench/paired.ts';
import { PAIRS_PER_PROCESS } from '../../src/bench/design.ts';
import { Store } from '../../src/store/store.ts';
import { runCli, tempDir } from '../helpers/cli.ts';

/** Two sides whose sessions count their blocks, and FIFOs that keep what was sent. */
function rig(goOn: (pair: number) => boolean = () => true) {
  const blocks = { A: 0, B: 0 };
  const sides = (['A', 'B'] as const).map((name) => ({ name, session: { startSegment: () => blocks[name]++ } })) as unknown as [SideRun, SideRun];
  const sent: string[] = [];
  const fifo = (name: string) => ({ send: (c: string) => sent.push(`${name}${c}`) }) as unknown as GoFifo;
  const switched: string[] = [];
  const turns = new Turns(sides, 2, 11, { goOn, switchTo: (s) => switched.push(s) });
  return { turns, sent, blocks, switched, fifos: [fifo('A'), fifo('B')] as [GoFifo, GoFifo] };
}

/** Play both processes: each waits at its gate, and runs when it gets 'g'. */
function play(r: ReturnType<typeof rig>): void {
  const own = { A: 0, B: 0 };
  r.turns.onWait('A', 0);
  r.turns.onWait('B', 0);
  for (let seen = 0; seen < r.sent.length; seen++) {
    const m = /^([AB])g$/.exec(r.sent[seen]!);
    if (m) r.turns.onWait(m[1] as 'A' | 'B', ++own[m[1] as 'A' | 'B']);
  }
}

test('blocks run in the seeded ABBA order, one process at a time, and a generation ends after PAIRS_PER_PROCESS pairs with s to both', () => {
  const r = rig();
  r.turns.startGeneration(r.fifos);
  play(r);
  const order = alternationOrder(11, PAIRS_PER_PROCESS);
  assert.equal(r.turns.order, order);
  assert.deepEqual(r.sent, [...Array.from(order, (s) => `${s}g`), 'As', 'Bs']);
  assert.deepEqual(r.switched, Array.from(order));
  assert.deepEqual(r.blocks, { A: PAIRS_PER_PROCESS, B: PAIRS_PER_PROCESS });
  assert.equal(r.turns.pairs, PAIRS_PER_PROCESS);
  assert.equal(r.turns.midPair(), false);
  assert.equal(r.turns.finished, false, 'the budget was not spent: the next generation may start');
});

test('the order and the pair count go on across generations; the budget stops at a pair boundary', () => {
  const r = rig((pair) => pair < PAIRS_PER_PROCESS + 3);
  r.turns.startGeneration(r.fifos);
  play(r);
  r.sent.length = 0;
  r.turns.startGeneration(r.fifos);
  play(r);
  assert.equal(r.turns.pairs, PAIRS_PER_PROCESS + 3);
  assert.equal(r.turns.order, alternationOrder(11, PAIRS_PER_PROCESS + 3));
  assert.deepEqual(r.sent.slice(-2), ['As', 'Bs']);
  assert.equal(r.sent.filter((x) => x.endsWith('g')).length, 6);
  assert.equal(r.turns.finished, true);
});

test('a switch that fails ends the generation with the reason, before the block runs', () => {
  const r = rig();
  const turns = new Turns((r.turns as unknown as { sides: [SideRun, SideRun] }).sides, 2, 11, { goOn: () => true, switchTo: () => { throw new Error('EROFS'); } });
  const sent: string[] = [];
  turns.startGeneration([{ send: (c: string) => sent.push(`A${c}`) }, { send: (c: string) => sent.push(`B${c}`) }] as unknown as [GoFifo, GoFifo]);
  turns.onWait('A', 0);
  turns.onWait('B', 0);
  assert.deepEqual(sent, ['As', 'Bs']);
  assert.match(turns.failure ?? '', /^switching the files to [AB] before block 0: EROFS$/);
  assert.equal(turns.finished, true);
});

test('once a side\'s round could not be stored, its partner gets s at its gate, not another block', () => {
  const failure: { storeFailure: unknown } = { storeFailure: null };
  const sides = (['A', 'B'] as const).map((name) => ({ name, session: { startSegment: () => {}, get storeFailure() { return name === 'A' ? failure.storeFailure : null; } } })) as unknown as [SideRun, SideRun];
  const sent: string[] = [];
  const turns = new Turns(sides, 2, 11, { goOn: () => true, switchTo: () => {} });
  turns.startGeneration([{ send: (c: string) => sent.push(`A${c}`) }, { send: (c: string) => sent.push(`B${c}`) }] as unknown as [GoFifo, GoFifo]);
  turns.onWait('A', 0);
  turns.onWait('B', 0);
  const first = sent[0]!;
  assert.match(first, /^[AB]g$/);
  // the block's side fails to store a round and prints its next wait before the stop reaches it
  failure.storeFailure = new Error('disk full');
  turns.onWait(first[0] as 'A' | 'B', 1);
  assert.deepEqual(sent, [first, 'As', 'Bs']);
  assert.equal(turns.finished, true);
});

test('one-process alternation: a wait after a round could not be stored gets s, and the files are not switched again', () => {
  const failure: { storeFailure: unknown } = { storeFailure: null };
  const sides = (['A', 'B'] as const).map((name) => ({ name, session: { startSegment: () => {}, feed: () => {}, get storeFailure() { return name === 'B' ? failure.storeFailure : null; } } })) as unknown as [SideRun, SideRun];
  const sent: string[] = [];
  const switched: string[] = [];
  const session = new AlternationSession(sides, 2, 11, { goOn: () => true, switchTo: (s) => switched.push(s), send: (c) => sent.push(c) });
  session.feed(frameLine('@hl1 wait block=0'));
  failure.storeFailure = new Error('disk full');
  session.feed(frameLine('@hl1 wait block=1'));
  assert.deepEqual(sent, ['g', 's']);
  assert.equal(switched.length, 1);
});

test('a real invocation: both sides store the same pairs, each its blocks as replicates in the seeded order, across fresh processes', async () => {
  const db = join(tempDir(), 't.db');
  const r = await runCli(['bench', '--db', db, '--profile', 'getppid', '--ops', '2000', '--time', '1', '--min-pairs', String(PAIRS_PER_PROCESS + 2), '--seed', '5', '--label-b', 'B', '--inject-seccomp-b', '64']);
  assert.equal(r.code, 0, r.stderr);
  const pairs = Number(/taking turns on CPU \d+, (\d+) pairs/.exec(r.stdout)?.[1]);
  assert.ok(pairs > PAIRS_PER_PROCESS, `${pairs} pairs: more than one generation of processes`);
  const store = Store.open(db);
  try {
    const [a, b] = [store.getRun(1), store.getRun(2)];
    for (const run of [a, b]) {
      assert.equal(run.status, 'complete');
      const reps = run.rounds.filter((x) => !x.warmup).map((x) => x.replicate);
      assert.deepEqual(reps, Array.from({ length: pairs }, (_, k) => [k, k]).flat());
      const rec = run.params.extra.interleave as { order: string; design: string; processes: number };
      assert.deepEqual([rec.design, rec.processes, rec.order], ['alternation', 2, alternationOrder(5, pairs)]);
    }
  } finally {
    store.close();
  }
  const cmp = await runCli(['compare', '1', '2', '--db', db]);
  assert.match(cmp.stdout, /Design: alternation: blocks of 2 rounds in random ABBA order \(seed 5\), an A and a B process taking turns on one CPU, \d+ generations? of processes \(up to 25 pairs of adjacent blocks each\), judged on each generation.s mean/);
});

test('which side starts first in each generation is drawn from the seed: the same seed the same starts, both sides first about half the time', () => {
  const draw = (seed: number, n: number): number[] => {
    const next = startOrder(seed);
    return Array.from({ length: n }, () => next());
  };
  assert.deepEqual(draw(7, 40), draw(7, 40));
  assert.notDeepEqual(draw(7, 40), draw(8, 40));
  const firsts = draw(12345, 2000);
  const bFirst = firsts.filter((f) => f === 1).length;
  // binomial(2000, 1/2): 5 SDs either side of 1000
  assert.ok(bFirst > 888 && bFirst < 1112, `B started first in ${bFirst} of 2000 generations`);
});

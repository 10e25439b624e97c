/**
 * The clock a run's rounds were timed on, read back from what the run
 * stored. Two runs on different clocks measure different things (a loaded
 * machine's wall clock counts the time other tasks held the CPU, the
 * thread's CPU clock leaves it out: twice the figure at load 7), so every
 * report names it and compare refuses to mix them (./checks.ts).
 *
 * What is known for runs stored before the clock was:
 *   - `params.extra.clock`: host probe runs from the version that stores it;
 *   - `params.extra.interleave.clock`: both sides of every `bench --label-b`
 *     invocation since the probe had `--clock`;
 *   - a host probe run with neither was timed on the wall clock: before
 *     `--clock` the probe had no other, and from then on interleaved runs
 *     record theirs while plain runs never passed it;
 *   - guest runs are timed by the guest: the unit says which clock
 *     (instructions under -icount, emulated time under TCG, KVM's clock);
 *   - stress-ng rates are per second of the wall clock (host or guest).
 * A stored clock this version does not know is refused when the run is read
 * (src/run-record.ts), never guessed.
 */
import type { Known, RunWithRounds } from '../model.ts';

/**
 * `wall`: CLOCK_MONOTONIC_RAW of the machine that ran the rounds;
 * `thread-cpu`: the probe thread's CPU time (CLOCK_THREAD_CPUTIME_ID);
 * `guest-icount`: a qemu -icount guest's clock, one ns per instruction;
 * `guest-emulated`: a TCG guest's clock without icount (emulation time).
 */
export type RunClock = 'wall' | 'thread-cpu' | 'guest-icount' | 'guest-emulated';


/** The clock of a run's rounds (see the file comment for runs stored before it was recorded). */
export function clockOf(run: RunWithRounds): Known<RunClock> {
  if (run.unit === 'instructions/call' || run.unit === 'icount-bogo-ops/s') return { known: true, value: 'guest-icount' };
  if (run.unit === 'emulated-time/call' || run.unit === 'emulated-bogo-ops/s') return { known: true, value: 'guest-emulated' };
  // src/run-record.ts refuses a stored clock this version does not know, when the run is read
  const { extra } = run.params;
  return { known: true, value: extra.clock ?? extra.interleave?.clock ?? 'wall' };
}

/** The clock every run shares, or unknown saying which run used which. */
export function sharedClock(runs: readonly { role: string; run: RunWithRounds }[]): Known<RunClock> {
  const clocks = runs.map((r) => ({ role: r.role, clock: clockOf(r.run) }));
  const first = clocks[0]?.clock;
  if (first === undefined) return { known: false, reason: 'no runs' };
  const key = (k: Known<RunClock>): string => (k.known ? k.value : 'unknown');
  if (clocks.every((c) => key(c.clock) === key(first))) return first;
  return { known: false, reason: `the runs differ: ${clocks.map((c) => `${c.role} ${key(c.clock)}`).join(', ')}` };
}

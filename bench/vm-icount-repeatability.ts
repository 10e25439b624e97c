/**
 * How repeatable are instruction counts between boots, and what does a boot
 * cost? Boots one kernel N times under TCG with -icount (as `hintlab vm
 * --icount` does) and prints, per profile, the median instructions per call
 * of every boot, the largest spread between boots, and the within-boot CV;
 * then the wall time of each boot.
 *
 *   node --import tsx bench/vm-icount-repeatability.ts --kernel PATH [--boots 4] [--rounds 8] [--ops 20000]
 *     [--profile getppid,sched_getscheduler] [--cost]
 *
 * With --cost every boot runs hintlab's cost plugin (`vm --cost`); the
 * script then also says whether every cost counter of every round is the
 * same in all boots.
 */
import { buildProbe } from '../src/launch/probe-build.ts';
import { selectProfiles } from '../src/bench/profiles.ts';
import { measuredValues } from '../src/model.ts';
import { cvPct, isSample, median } from '../src/stats/descriptive.ts';
import { Store } from '../src/store/store.ts';
import { resolveKernel } from '../src/vm/kernels.ts';
import { qemuLauncher } from '../src/launch/qemu.ts';
import { runVm } from '../src/vm/runner.ts';
import { buildCostPlugin, DEFAULT_COST_MODEL } from '../src/vm/cost-plugin.ts';

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1]! : dflt;
}

const kernelPath = arg('--kernel', process.env.HINTLAB_TEST_VMLINUZ ?? '');
if (!kernelPath) throw new Error('pass --kernel PATH (a bzImage or vmlinuz) or set HINTLAB_TEST_VMLINUZ');
const boots = Number(arg('--boots', '4'));
const cost = process.argv.includes('--cost');
const store = Store.open(':memory:');
const result = await runVm(
  {
    kernels: [resolveKernel(`K=${kernelPath}`, process.cwd())],
    steps: Array.from({ length: boots }, () => 'K'),
    profiles: selectProfiles([arg('--profile', 'getppid,sched_getscheduler')]),
    ops: Number(arg('--ops', '20000')),
    warmups: 1,
    rounds: Number(arg('--rounds', '8')),
    accel: 'tcg',
    icount: true,
    timeoutSeconds: 600,
    labelPrefix: 'bench-',
    command: 'bench/vm-icount-repeatability.ts',
    hintlabVersion: 'bench',
    cost: cost ? DEFAULT_COST_MODEL : null,
  },
  { store, launcher: qemuLauncher(), probe: buildProbe({ static: true }), abort: new AbortController().signal, costPlugin: cost ? buildCostPlugin() : undefined },
);
const runs = result.steps.map((s) => store.getRun(s.runId));
const failed = result.steps.filter((s) => s.state === 'failed');
if (failed.length) throw new Error(`boots failed: ${failed.map((s) => s.reason).join('\n')}`);
console.log(`kernel: ${kernelPath}\n${boots} boots under TCG with -icount shift=0,sleep=off${cost ? ' and the cost plugin' : ''}\n`);
for (const subject of runs[0]!.params.subjects) {
  const medians: number[] = [];
  const cvs: number[] = [];
  for (const run of runs) {
    const v = measuredValues(run, subject);
    if (!isSample(v)) continue;
    medians.push(median(v));
    cvs.push(cvPct(v));
  }
  const lo = Math.min(...medians);
  const hi = Math.max(...medians);
  console.log(`${subject}: medians ${medians.map((m) => m.toFixed(2)).join(', ')} instructions/call; ` +
    `spread between boots ${(100 * (hi - lo) / lo).toFixed(4)} %; within-boot CV ${Math.min(...cvs).toFixed(3)}..${Math.max(...cvs).toFixed(3)} %`);
}
const secs = result.steps.map((s) => (s.state === 'complete' ? s.seconds : NaN));
console.log(`\nwall time per boot (boot + all rounds): ${secs.map((s) => s.toFixed(1)).join(', ')} s`);
if (cost) {
  // every round's counters, in order, per boot: equal strings = bit-identical boots
  const counters = runs.map((r) => JSON.stringify(r.rounds.map((x) => [x.subject, x.total, x.metrics.map((m) => m.value)])));
  console.log(`cost counters of every round identical in all ${boots} boots: ${counters.every((c) => c === counters[0]) ? 'yes' : 'NO'}`);
}
const exact = runs.map((r) => JSON.stringify(r.rounds.map((x) => x.total)));
console.log(`instruction counts of every round identical in all ${boots} boots: ${exact.every((c) => c === exact[0]) ? 'yes' : 'no'}`);

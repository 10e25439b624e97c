/**
 * A fake guest: a boot site whose boots run nothing and answer the probe's
 * job with exact numbers (./fake-address.ts says how many instructions per
 * call each kernel costs). It lets `hintlab vm --target fake://...` run end
 * to end in-process, through the same flag, parser, factory and scheduler
 * as qemu and LAVA; it stores runs like theirs, with the unit the flags ask
 * for.
 *
 * A round's total is N x its calls, plus its index mod 5 and the number
 * of earlier boots of the same kernel (a few instructions over the whole
 * round), so rounds and boots have a spread for a comparison to work with
 * and every run still repeats exactly.
 */
import { frameLine } from '../launch/probe-protocol.ts';
import { FAKE_DEFAULT_PER_CALL, parseFakeAddress, type FakeAddress } from './fake-address.ts';
import type { GuestSpec } from './guest.ts';
import { neverStops, type BootSite, type SiteKind } from './site.ts';
import type { Target, TargetExit, TargetJob } from './target.ts';

/** The probe's arguments a fake boot reads: warm-ups, rounds and each profile with its calls per round. */
function jobPlan(job: TargetJob): { warmups: number; rounds: number; profiles: { name: string; ops: number }[] } {
  const value = (flag: string) => Number(job.args[job.args.indexOf(flag) + 1] ?? 0);
  const profiles = job.args.flatMap((a, i) => (job.args[i - 1] === '--profile' ? [{ name: a.split(':')[0]!, ops: Number(a.split(':')[1]) }] : []));
  return { warmups: value('--warmups'), rounds: value('--rounds'), profiles };
}

/** The probe's lines for boot `boot` (0-based) of a kernel costing `perCall` instructions per call. */
export function fakeProbeLines(job: TargetJob, perCall: number, boot: number): string[] {
  const plan = jobPlan(job);
  const ops = plan.profiles[0]?.ops ?? 0;
  const lines = [`@hl1 hello proto=1 kernel=6.12.0-fake version=%231 machine=x86_64 pid1=1 cpu=0 ops=${ops} warmups=${plan.warmups} rounds=${plan.rounds} seccomp=0`];
  for (const p of plan.profiles) {
    lines.push(`@hl1 prepared profile=${p.name} params=`);
    for (let i = 0; i < plan.warmups; i++) lines.push(`@hl1 round profile=${p.name} idx=${i} warmup=1 ops=${p.ops} elapsed=${p.ops * perCall} cpu=0`);
    for (let i = 0; i < plan.rounds; i++) lines.push(`@hl1 round profile=${p.name} idx=${i} warmup=0 ops=${p.ops} elapsed=${p.ops * perCall + (i % 5) + boot} cpu=0`);
  }
  lines.push(`@hl1 done rounds=${plan.rounds} profiles=${plan.profiles.length}`, '@hl1 poweroff status=0');
  return lines.map((l) => frameLine(l));
}

function fakeGuestTarget(spec: GuestSpec, perCall: number, boots: Map<string, number>): Target {
  return {
    kind: 'guest',
    name: `fake guest (kernel ${spec.label})`,
    run(job, onLine): Promise<TargetExit> {
      const boot = boots.get(spec.label) ?? 0;
      boots.set(spec.label, boot + 1);
      const lines = fakeProbeLines(job, perCall, boot);
      for (const l of lines) onLine(l);
      return Promise.resolve({
        end: { kind: 'exited', code: 0, signal: null },
        outputTail: lines.slice(-25),
        stderrTail: [],
        elapsedMs: 0,
        collected: new Map(),
        describe: (what) => `${what} (fake guest of kernel ${spec.label})`,
      });
    },
    close: () => Promise.resolve(),
  };
}

/** The fake guests of `address`; nothing to open or close. */
export function openFakeSite(address: FakeAddress): Promise<BootSite> {
  const boots = new Map<string, number>();
  return Promise.resolve({
    name: address.name,
    accel: { kind: 'decided', accel: 'tcg', why: 'a fake guest: nothing is emulated or timed' },
    append: 'console=ttyS0 (fake)',
    parallel: 1,
    ...neverStops(),
    target: (spec) => fakeGuestTarget(spec, address.perCall.get(spec.label) ?? FAKE_DEFAULT_PER_CALL, boots),
    environmentOf: () => null,
    close: () => Promise.resolve(),
  });
}

/** Fake guests in the factory's table (src/targets/factory.ts). */
export const FAKE_SITE: SiteKind<FakeAddress> = {
  scheme: /^fake:\/\//,
  words: 'a fake guest',
  resumes: false,
  parse: parseFakeAddress,
  problem: () => null,
  open: openFakeSite,
};

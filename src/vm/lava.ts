/**
 * `hintlab vm --target lava://... --resume`: which steps of a boot order a
 * LAVA lab has already stored complete, so that only the rest boots again.
 * The lab itself is a boot site (src/targets/lava/site.ts).
 */
import { UserError } from '../errors.ts';
import { RunNotFoundError, type Store } from '../store/store.ts';
import type { Run } from '../model.ts';
import { readEnvironment, vmOf } from '../environment/read.ts';
import { fileSha256 } from '../targets/lava/job.ts';
import { planSteps, type StepPlan, type VmRequest } from './runner.ts';

/** A step of the order as `--resume` finds it: done (null), or why it boots (again). */
export interface ResumeStep {
  plan: StepPlan;
  /** Why the stored run is not taken: null when it is; `not stored` when there is none. */
  why: string | null;
}

/**
 * `--resume`: the steps of this order already stored complete from this
 * lab, by step index. A step counts as done only when the newest run of its
 * label is complete and was made by the same order, profiles, --ops,
 * --warmups, --rounds, --inject-work, icount, probe build and LAVA server,
 * from a kernel image with the same content (its sha256, stored with each
 * job): a bzImage rebuilt in place is booted again. A run stored without
 * the hash is booted again too, and says so. One run per boot only: a
 * --repeat design pools its boots into one run per kernel.
 */
export function resumeSteps(store: Store, req: VmRequest, server: string, probeBuildId: string): ResumeStep[] {
  if (req.poolBoots) throw new UserError('--resume continues an order with one run per boot (--order); a --repeat design pools boots into one run per kernel, so run it again whole', 2);
  const hashes = new Map<string, string>();
  const hashOf = (path: string) => hashes.get(path) ?? hashes.set(path, fileSha256(path)).get(path)!;
  return planSteps(req).map((plan) => {
    let run;
    try {
      run = store.resolveRun(plan.runLabel);
    } catch (err) {
      if (err instanceof RunNotFoundError) return { plan, why: 'not stored' };
      throw err;
    }
    return { plan, why: staleBecause(run, req, plan, { server, probeBuildId, kernelSha256: hashOf(plan.kernel.image) }) };
  });
}

/** The step indices `--resume` does not boot again. */
export function stepsDone(store: Store, req: VmRequest, server: string, probeBuildId: string): number[] {
  return resumeSteps(store, req, server, probeBuildId).flatMap((s) => (s.why === null ? [s.plan.index] : []));
}

/** Why a stored run is not this step's boot, or null when it is. */
function staleBecause(run: Run, req: VmRequest, plan: StepPlan, now: { server: string; probeBuildId: string; kernelSha256: string }): string | null {
  const extra = run.params.extra;
  const env = readEnvironment(run);
  const lava = env.where === 'guest' ? env.lava : undefined;
  const p = run.params;
  const differs = (flag: string, was: string | number | boolean | null | undefined, is: string | number | boolean | null | undefined) => (was === is ? null : `stored with ${flag} ${String(was ?? 'unset')}, not ${String(is ?? 'unset')}`);
  const hash = lava?.jobs?.at(-1)?.kernelSha256 ?? null;
  return (
    (run.status === 'complete' ? null : `stored ${run.status}`) ??
    differs('order', extra.order, req.steps.join(',')) ??
    differs('profiles', p.subjects.join(','), req.profiles.map((x) => x.name).join(',')) ??
    differs('--ops', p.ops, req.ops) ??
    differs('--warmups', p.warmups, req.warmups) ??
    differs('--rounds', p.rounds, req.rounds) ??
    differs('--inject-work', extra.injectWork ?? 0, req.injectWork?.[plan.kernel.label] ?? 0) ??
    differs('--icount', extra.icount === true, req.icount) ??
    (lava?.server === now.server ? null : `stored from ${lava?.server ?? 'local qemu'}`) ??
    (env.probe?.buildId === now.probeBuildId ? null : 'stored by another probe build') ??
    (vmOf(env)?.kernelPath === plan.kernel.image ? null : `stored from kernel ${vmOf(env)?.kernelPath ?? 'unknown'}`) ??
    (hash === null
      ? "stored without the kernel image's hash (an older hintlab), so it cannot be told from a rebuilt one"
      : hash === now.kernelSha256
        ? null
        : `kernel image ${plan.kernel.image} changed since (sha256 ${hash.slice(0, 12)}, now ${now.kernelSha256.slice(0, 12)})`)
  );
}

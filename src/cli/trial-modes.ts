/**
 * The mode conflicts of `hintlab trial`, all found from the flags alone,
 * before the probe or the cost plugin is built and before any kernel: a
 * trial refused after an hour of builds is the failure this prevents. Those
 * of where the boots run (--target, --kvm, --cost) are the place parser's
 * (src/targets/place.ts).
 */
import { patchSections } from '../kernel/patch-names.ts';
import { perHunkPlanText } from '../report/trial-hunks.ts';
import { perCommitPlanText } from '../report/trial-commits.ts';
import { estimatePerCommit } from '../trial/per-commit.ts';
import { estimatePerHunk, PER_HUNK_MAX_KERNELS } from '../trial/per-hunk.ts';
import { UserError } from '../errors.ts';
import type { BootPlace } from '../targets/factory.ts';
import { parsePlace } from '../targets/place.ts';

/** The flags the checks read. */
export interface TrialModeFlags {
  cost?: boolean;
  costModel?: string;
  kvm?: boolean;
  target?: string;
  stressor: string[];
  set: string[];
  format: string;
  all?: boolean;
  perHunk?: boolean;
  perCommit?: boolean;
  force?: boolean;
}

const usage = (message: string): UserError => new UserError(message, 2);

/**
 * Refuse every combination of trial flags that cannot run as asked, or
 * that asks for something no step would do, and say where the boots run.
 * `given` says whether a flag was typed (a default is not).
 */
export function checkTrialModes(opts: TrialModeFlags, given: (flag: string) => boolean, env: NodeJS.ProcessEnv): BootPlace {
  const place = parsePlace('trial', { target: opts.target === undefined ? [] : [opts.target], cost: opts.cost, costModel: opts.costModel, kvm: opts.kvm }, env, given);
  const stress = opts.stressor.length > 0 || opts.set.length > 0;
  for (const flag of ['--stressor-seconds', '--stressor-repeats', '--stressor-instances']) {
    if (!stress && given(flag)) throw usage(`${flag} sets the stressor boots, and there are none: add --stressor NAME or --set sched, or drop ${flag}`);
  }
  if (opts.force && !opts.perHunk && !opts.perCommit) throw usage('--force lifts the cap of --per-hunk and --per-commit, and there is neither: drop --force');
  if (opts.all && opts.format !== 'lkml') throw usage(`--all widens the lkml table; the ${opts.format} report lists every subject already: drop --all or use --format lkml`);
  return place;
}

/**
 * The --per-hunk plan from the patches' hunks, said before anything builds;
 * past PER_HUNK_MAX_KERNELS variant kernels it is refused unless --force.
 * Returns the note to say, or null without --per-hunk.
 */
export function perHunkPlan(opts: { perHunk?: boolean; force?: boolean; repeat: number; stress: boolean }, patches: { path: string; text: string }[]): string | null {
  if (!opts.perHunk) return null;
  const hunks = patches.reduce((n, p) => n + patchSections(p.text, `--patch ${p.path}`).reduce((m, s) => m + s.hunkStarts.length, 0), 0);
  const estimate = estimatePerHunk(hunks, opts.repeat, opts.stress);
  const plan = perHunkPlanText(estimate);
  if (estimate.kernels > PER_HUNK_MAX_KERNELS && !opts.force) {
    throw usage(`--per-hunk: ${plan}; that is past the ${PER_HUNK_MAX_KERNELS} kernels --per-hunk builds without --force: add --force to run it all, or split the patch and try its parts`);
  }
  return `note: --per-hunk: ${plan}`;
}

/**
 * The --per-commit plan from the series' length, said before anything
 * builds: how many kernels and boots, and about how long. Past
 * PER_HUNK_MAX_KERNELS kernels it is refused unless --force. Returns the
 * note to say, or null without --per-commit.
 */
export function perCommitPlan(opts: { perCommit?: boolean; force?: boolean; repeat: number; stress: boolean }, patches: number): string | null {
  if (!opts.perCommit) return null;
  const estimate = estimatePerCommit(patches, opts.repeat, opts.stress);
  const plan = perCommitPlanText(estimate);
  if (estimate.kernels > PER_HUNK_MAX_KERNELS && !opts.force) {
    throw usage(`--per-commit: ${plan}; that is past the ${PER_HUNK_MAX_KERNELS} kernels --per-commit builds without --force: add --force to run it all, or give a shorter range`);
  }
  return `note: --per-commit: ${plan}`;
}

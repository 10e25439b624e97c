/**
 * Known work (`--inject-work-b`): the probe arguments each side's
 * processes get, and the counts they may hold (probes/work.c runs N
 * dependent register additions per call of a timed loop, fenced by lfence
 * on both sides once any known work is given).
 *
 * Every process of a known-work run, A's included, runs WORK_BASE
 * additions per call, and B's its own N more. Even fenced, the first few
 * additions of a block overlap what runs before it: on the 2-vCPU VM
 * (Intel Xeon, 2026-12-05, alternation, getppid at 85 ns per call) N
 * additions cost 0.2826 ns each less a constant of 1.0-1.7 ns (about 4-5
 * additions), from N = 16 to 1024: without a base, the 9 additions
 * calibrated for +3 % read +1.6 %. With a base of 32 on both sides that
 * constant is paid by both: 16 additions over 32 cost 4.4-4.7 ns, against
 * 4.52 ns for 16 full additions (docs/bench-power.md, "Why known work
 * read low"). Under
 * `vm --icount` B still runs exactly N more instructions per call.
 *
 * N may be fractional (a pilot's 3.55): the probe runs floor(N) or
 * floor(N) + 1 additions in each round, so that the mean over the rounds is
 * N; one addition is 0.3 % of a 95 ns getppid, too coarse to inject a
 * change near what a run can detect.
 */

/** The most additions the probe's unrolled block holds (probes/work.c). */
export const WORK_MAX = 65536;

/** Additions per call every process of a known-work run runs before its side's own (see the file comment). */
export const WORK_BASE = 32;

/** The most additions `--inject-work-b` may give B on top of the base. */
export const WORK_EXTRA_MAX = WORK_MAX - WORK_BASE;

/** Thousandths of an addition: the probe's resolution (probes/work.c dithers the fraction over rounds). */
export const roundWork = (n: number) => Math.round(n * 1000) / 1000;

/** Known work per profile of one side (absent: none beyond the base). */
interface WorkSide {
  injectWork?: Record<string, number>;
}

/**
 * The probe arguments that give a side its known work: `--inject-work
 * WORK_BASE` for every profile, then `--inject-work PROFILE:WORK_BASE+N`
 * for the side's own. When neither side has known work, none (and the
 * block is not fenced).
 */
export function workArgs(side: WorkSide, req: { a: WorkSide; b: WorkSide }): string[] {
  if (!req.a.injectWork && !req.b.injectWork) return [];
  const own = Object.entries(side.injectWork ?? {}).flatMap(([p, n]) => ['--inject-work', `${p}:${roundWork(WORK_BASE + n)}`]);
  return ['--inject-work', String(WORK_BASE), ...own];
}

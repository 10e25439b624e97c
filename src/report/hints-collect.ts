/**
 * What `hintlab hints collect` prints: the stress-ng workload's plan before
 * the build, and at the end what was profiled, what came back and where,
 * how long each part took, and the command to run next. Text only; the
 * CLI decides where it goes.
 */
import { relative } from 'node:path';
import type { CoverageRecord } from '../hints/collect/collect.ts';
import type { StressNgWorkload } from '../hints/collect/stress-ng.ts';
import { formatDuration, formatKiB, formatSeconds } from '../format/durations.ts';

/** Quote a path for the command line a user copies. */
const q = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The stress-ng workload announced once, before the build: what runs in the guest and for about how long. */
export function guestStressNgLine(w: StressNgWorkload, plannedSeconds: number): string {
  return `stress-ng ${w.version} in the guest: ${w.stressors.length} stressor${w.stressors.length === 1 ? '' : 's'} x ${w.seconds} s: about ${formatDuration(plannedSeconds + w.stressors.length)} of the boot (guest seconds run at wall speed, also under TCG)\n`;
}

/** The end of a collection: `out` is the set's directory, `cwd` where the next command is run from. */
export function collectSummary(r: CoverageRecord, out: string, cwd: string): string {
  const s = r.seconds;
  const scope = r.scope.kind === 'all' ? 'the whole kernel (GCOV_PROFILE_ALL)' : r.scope.dirs.join(', ');
  const rel = relative(cwd, r.source.dir) || '.';
  const srcArg = rel.startsWith('..') ? r.source.dir : rel;
  const profiler = r.counter === 'branch-profiler';
  const build = s.buildReused ? `reused (built earlier in ${formatSeconds(s.build, 0)})` : formatSeconds(s.build, 0);
  return [
    `${profiler ? 'branch profile' : 'coverage'} '${r.name}': Linux ${r.source.version}${r.kernel.release === r.source.version ? '' : ` (guest: ${r.kernel.release})`}, profiled: ${profiler ? 'every if of the kernel (PROFILE_ALL_BRANCHES)' : scope}, workload: ${r.workload}`,
    profiler
      ? `  ${r.gcdaFiles} trace_stat files (${formatKiB(r.gcdaBytes)}) -> branch_all in ${out}`
      : `  ${r.gcdaFiles} .gcda files (${formatKiB(r.gcdaBytes)}) -> ${r.jsonFiles.length} gcov JSON files in ${out}`,
    `  time: build ${build}, boot + workload + transfer ${formatSeconds(s.boot, 0)} (transfer ${formatSeconds(s.transfer, 1)}), gcov ${formatSeconds(s.gcov, 1)}; ${r.accel}`,
    ...(r.withoutGcno.length ? [`  ${r.withoutGcno.length} .gcda file(s) without a .gcno in the build, skipped: ${r.withoutGcno.slice(0, 3).join(', ')}`] : []),
    `next: hintlab hints ${q(`${r.name}=${out}`)} --src ${q(srcArg)}`,
    '',
  ].join('\n');
}

/**
 * What `hintlab hints collect` prints: the stress-ng workload's plan before
 * the build, and at the end what was profiled, what came back and where,
 * how long each part took, and the command to run next. Text only; the
 * CLI decides where it goes.
 */
import { relative } from 'node:path';
import type { CoverageRecord, ExactFacts } from '../hints/collect/collect.ts';
import type { StressNgWorkload } from '../hints/collect/stress-ng.ts';
import { formatDuration, formatKiB, formatSeconds } from '../format/durations.ts';

/** Quote a path for the command line a user copies. */
const q = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The stress-ng workload announced once, before the build: what runs in the guest and for about how long. */
export function guestStressNgLine(w: StressNgWorkload, plannedSeconds: number): string {
  return `stress-ng ${w.version} in the guest: ${w.stressors.length} stressor${w.stressors.length === 1 ? '' : 's'} x ${w.seconds} s: about ${formatDuration(plannedSeconds + w.stressors.length)} of the boot (guest seconds run at wall speed, also under TCG)\n`;
}

/** The `next:` line: the command that reads the set. */
function nextLine(r: CoverageRecord, out: string, cwd: string): string {
  const rel = relative(cwd, r.source.dir) || '.';
  const srcArg = rel.startsWith('..') ? r.source.dir : rel;
  return `next: hintlab hints ${q(`${r.name}=${out}`)} --src ${q(srcArg)}`;
}

const KERNEL_FROM: Record<ExactFacts['kernelFrom'], string> = { given: 'given with --kernel-build', reused: 'reused', built: 'built for this collect' };

/** The end of an exact collect: the kernel as built, the windows and jumps, and the time after the boot. */
function exactSummary(r: CoverageRecord, e: ExactFacts, out: string, cwd: string): string {
  const s = r.seconds;
  const build = e.kernelFrom === 'built' ? `build ${formatSeconds(s.build, 0)}, ` : '';
  return [
    `exact branch counts '${r.name}': Linux ${r.source.version}${r.kernel.release === r.source.version ? '' : ` (guest: ${r.kernel.release})`}, the kernel as built (${r.kernel.buildDir}, ${KERNEL_FROM[e.kernelFrom]}), workload: ${r.workload}`,
    `  ${e.windows} window${e.windows === 1 ? '' : 's'} summed: ${e.branches} conditional jumps, ${e.noLines ? 'by function and offset only' : 'each with its source lines'} -> ${r.jsonFiles.join(', ')} in ${out}`,
    ...(e.noLines ? [`  ${e.noLines}`] : []),
    ...(e.noInsns ? [`  ${e.noInsns}`] : []),
    `  time: ${build}boot + workload ${formatSeconds(s.boot, 0)}, addr2line ${formatSeconds(e.seconds.addr2line, 1)}, objdump ${formatSeconds(e.seconds.objdump, 1)}; qemu ${e.qemu} ${r.accel}`,
    nextLine(r, out, cwd),
    '',
  ].join('\n');
}

/** The end of a collection: `out` is the set's directory, `cwd` where the next command is run from. */
export function collectSummary(r: CoverageRecord, out: string, cwd: string): string {
  if (r.exact) return exactSummary(r, r.exact, out, cwd);
  const s = r.seconds;
  const scope = r.scope.kind === 'all' ? 'the whole kernel (GCOV_PROFILE_ALL)' : r.scope.dirs.join(', ');
  const profiler = r.counter === 'branch-profiler';
  const build = s.buildReused ? `reused (built earlier in ${formatSeconds(s.build, 0)})` : formatSeconds(s.build, 0);
  return [
    `${profiler ? 'branch profile' : 'coverage'} '${r.name}': Linux ${r.source.version}${r.kernel.release === r.source.version ? '' : ` (guest: ${r.kernel.release})`}, profiled: ${profiler ? 'every if of the kernel (PROFILE_ALL_BRANCHES)' : scope}, workload: ${r.workload}`,
    profiler
      ? `  ${r.gcdaFiles} trace_stat files (${formatKiB(r.gcdaBytes)}) -> branch_all in ${out}`
      : `  ${r.gcdaFiles} .gcda files (${formatKiB(r.gcdaBytes)}) -> ${r.jsonFiles.length} gcov JSON files in ${out}`,
    `  time: build ${build}, boot + workload + transfer ${formatSeconds(s.boot, 0)} (transfer ${formatSeconds(s.transfer, 1)}), gcov ${formatSeconds(s.gcov, 1)}; ${r.accel}`,
    ...(r.withoutGcno.length ? [`  ${r.withoutGcno.length} .gcda file(s) without a .gcno in the build, skipped: ${r.withoutGcno.slice(0, 3).join(', ')}`] : []),
    nextLine(r, out, cwd),
    '',
  ].join('\n');
}

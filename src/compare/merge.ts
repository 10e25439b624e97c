/**
 * Several runs of one configuration read as one side of a comparison: the
 * boots of one kernel (each `hintlab vm` boot is its own run), given as
 * `vm-A-1,vm-A-2,vm-A-3`. Each run's units keep their identity: they are
 * numbered on after the previous run's, so three single-boot runs are one
 * side of three boots.
 */
import { readEnvironment } from '../environment/read.ts';
import type { RunWithRounds } from '../model.ts';
import { ComparisonRefused } from './checks.ts';

function kernelOf(run: RunWithRounds): string {
  const env = readEnvironment(run);
  const label = run.params.extra.kernelLabel;
  return `${env.kernel?.release?.known ? env.kernel.release.value : 'unknown'}${label !== undefined ? ` (kernel ${label})` : ''}`;
}

const nameOf = (r: RunWithRounds) => `run ${r.id}${r.label ? ` '${r.label}'` : ''}`;

/** One run standing for `runs` (at least one); refused when they measured different things. */
export function mergeRuns(runs: readonly RunWithRounds[]): RunWithRounds {
  const [first, ...rest] = runs;
  if (!first) throw new Error('internal: mergeRuns needs a run');
  if (rest.length === 0) return first;
  const fields: [string, (r: RunWithRounds) => string][] = [
    ['unit', (r) => r.unit],
    ['kernel', kernelOf],
    ['units of replication', (r) => (r.replicateUnit.known ? r.replicateUnit.value : 'not recorded')],
  ];
  for (const r of rest) {
    const differs = fields.find(([, f]) => f(r) !== f(first));
    if (differs) {
      const [name, f] = differs;
      throw new ComparisonRefused(
        `${name}: ${nameOf(first)} = ${f(first)}, ${nameOf(r)} = ${f(r)}: runs given together as one side must measure the same configuration.`,
      );
    }
  }
  const rounds: RunWithRounds['rounds'] = [];
  let offset = 0;
  for (const run of runs) {
    const units = Math.max(-1, ...run.rounds.map((x) => x.replicate)) + 1;
    for (const x of run.rounds) rounds.push({ ...x, seq: rounds.length, replicate: x.replicate + offset });
    offset += units;
  }
  const notComplete = runs.find((r) => r.status !== 'complete');
  return {
    ...first,
    label: runs.map((r) => r.label ?? `#${r.id}`).join(','),
    status: notComplete ? notComplete.status : 'complete',
    error: notComplete ? `${nameOf(notComplete)}: ${notComplete.error ?? notComplete.status}` : null,
    rounds,
  };
}

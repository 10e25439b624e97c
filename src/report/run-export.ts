/**
 * Raw rounds of one run for other tools: a versioned JSON document, or CSV
 * with the unit in every numeric column's name.
 *
 * Format history: 1 - first version.
 *   2 - `replicate` on every round (the 0-based unit of replication within
 *       the run: probe process, boot or stress-ng invocation, named by the
 *       run's `replicateUnit`); null/empty for runs recorded before units
 *       were stored, which count as one unit. Later, without a version
 *       change (a field added): `clock`, what the rounds were timed on
 *       (a Known<RunClock>, src/compare/clock.ts).
 */
import type { Round, RunWithRounds, Unit } from '../model.ts';
import { summarizeRun } from './run-table.ts';
import { clockOf } from '../compare/clock.ts';

export const RUN_DOC_VERSION = 2;

/** Column-name forms of a unit: what `total` and `value` are measured in. */
export function unitColumns(unit: Unit): { total: string; value: string } {
  switch (unit) {
    case 'ns/call':
      return { total: 'elapsed_ns', value: 'ns_per_call' };
    case 'instructions/call':
      return { total: 'instructions', value: 'instructions_per_call' };
    case 'emulated-time/call':
      return { total: 'elapsed_emulated_time', value: 'emulated_time_per_call' };
    case 'bogo-ops/s':
      return { total: 'bogo_ops', value: 'bogo_ops_per_s' };
    case 'emulated-bogo-ops/s':
      return { total: 'bogo_ops', value: 'bogo_ops_per_emulated_s' };
    case 'icount-bogo-ops/s':
      return { total: 'bogo_ops', value: 'bogo_ops_per_guest_s_icount' };
  }
}

/** A round's unit of replication as exported: null when the run did not record units. */
function replicateOf(run: RunWithRounds, r: Round): number | null {
  return run.replicateUnit.known ? r.replicate : null;
}

/** The run, its environment, per-subject summaries and every round. */
export function runJson(run: RunWithRounds): string {
  const cols = unitColumns(run.unit);
  const { rounds, ...meta } = run;
  const doc = {
    format: 'hintlab-run',
    version: RUN_DOC_VERSION,
    run: meta,
    clock: clockOf(run),
    summaries: summarizeRun(run).map((s) => ({
      subject: s.subject,
      rounds: s.rounds,
      ops_per_round: s.ops,
      [`mean_${cols.value}`]: s.mean,
      [`median_${cols.value}`]: s.median,
      [`stdev_${cols.value}`]: s.stdev,
      cv_pct: s.cvPct,
      [`min_${cols.value}`]: s.min,
      [`max_${cols.value}`]: s.max,
    })),
    rounds: rounds.map((r) => ({
      seq: r.seq,
      subject: r.subject,
      round: r.index,
      replicate: replicateOf(run, r),
      warmup: r.warmup,
      ops: r.ops,
      [cols.total]: r.total,
      [cols.value]: r.value,
      recorded_at: r.recordedAt,
      metrics: r.metrics,
    })),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

function csvCell(v: string | number | boolean): string {
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One row per round, warm-ups included and marked. */
export function runCsv(run: RunWithRounds): string {
  const cols = unitColumns(run.unit);
  const header = ['run_id', 'seq', 'subject', 'round', 'replicate', 'warmup', 'ops', cols.total, cols.value, 'recorded_at'];
  const rows = run.rounds.map((r) =>
    [run.id, r.seq, r.subject, r.index, replicateOf(run, r) ?? '', r.warmup ? 1 : 0, r.ops, r.total, r.value, r.recordedAt].map(csvCell).join(','),
  );
  return `${[header.join(','), ...rows].join('\n')}\n`;
}

/**
 * From one stressor's stress-ng metrics to a stored round: the primary
 * value, and the secondary metrics each with a unit and a direction.
 */
import type { Direction, Metric } from '../model.ts';
import type { NewRound } from '../store/store.ts';
import type { StressorMetrics } from './yaml.ts';

interface MetricKind {
  unit: string;
  direction: Direction;
}

const HIGHER: Direction = 'higher-is-better';
const LOWER: Direction = 'lower-is-better';

/**
 * The fields every stressor reports. Times, CPU usage and RSS are context:
 * for a run of fixed duration less of them for the same throughput is
 * better, which is the direction recorded. `bogo-ops-per-second-real-time`
 * is the round's primary value and is not repeated as a metric.
 */
const STANDARD: Record<string, MetricKind | 'primary'> = {
  'bogo-ops-per-second-real-time': 'primary',
  'bogo-ops': { unit: 'bogo-ops', direction: HIGHER },
  'bogo-ops-per-second-usr-sys-time': { unit: 'bogo-ops/s (usr+sys time)', direction: HIGHER },
  'wall-clock-time': { unit: 's', direction: LOWER },
  'user-time': { unit: 's', direction: LOWER },
  'system-time': { unit: 's', direction: LOWER },
  'cpu-usage-per-instance': { unit: '%', direction: LOWER },
  'max-rss': { unit: 'KB', direction: LOWER },
};

/**
 * The unit and direction of a stressor-specific metric, from the words of
 * its name (stress-ng turns its description, e.g. "ns duration per
 * sched_yield call", into the YAML key). Null when the name says neither:
 * such a metric is reported as unclassified, never given a guessed direction.
 */
export function classifyExtraMetric(name: string): MetricKind | null {
  const rate = /^(.*?)-?per-sec(?:ond)?(?:-|$)/.exec(name);
  if (rate) {
    const before = rate[1] ?? '';
    if (/^mb$/.test(before)) return { unit: 'MB/s', direction: HIGHER };
    if (/^kb$/.test(before)) return { unit: 'KB/s', direction: HIGHER };
    const what = before.split('-').pop();
    return { unit: what ? `${what}/s` : '1/s', direction: HIGHER };
  }
  const timeUnits: [RegExp, string][] = [
    [/(?:^|-)(?:nanosecs?|nsecs?|ns)(?:-|$)/, 'ns'],
    [/(?:^|-)(?:microsecs?|usecs?|us)(?:-|$)/, 'us'],
    [/(?:^|-)(?:millisecs?|msecs?|ms)(?:-|$)/, 'ms'],
  ];
  for (const [re, unit] of timeUnits) if (re.test(name)) return { unit, direction: LOWER };
  // stress-ng drops the '%' of "% of 2048 pthreads created" when it makes the key.
  if (/^-of-.*-(created|succeeded|successful)$/.test(name)) return { unit: '%', direction: HIGHER };
  return null;
}

/** What a macro round stores, and the stressor metrics that could not be classified. */
export interface MacroRound {
  round: NewRound;
  unclassified: string[];
}

/**
 * The round for one stress-ng invocation.
 *
 * A macro round is one invocation of fixed duration, and its sample is the
 * throughput it reached: `value` is bogo-ops/s over real (wall-clock) time.
 * The model's `value = total / ops` is kept with `ops = 1` (one invocation)
 * and `total = value`; the bogo-op count and the times are in `metrics`.
 * `ops` is deliberately not the bogo-op count: it varies from round to round,
 * and comparisons treat a differing ops-per-round as runs measuring
 * different things. What fixes the work of a macro round (stressor,
 * instances, seconds, CPU list) is in the run's `subjectParams`.
 */
export function macroRound(m: StressorMetrics, at: { seq: number; subject: string; repeat: number }): MacroRound {
  const metrics: Metric[] = [];
  const unclassified: string[] = [];
  for (const [name, value] of m.fields) {
    const standard = STANDARD[name];
    if (standard === 'primary') continue;
    const kind = standard ?? classifyExtraMetric(name);
    if (kind) metrics.push({ name, value, unit: kind.unit, direction: kind.direction });
    else unclassified.push(name);
  }
  const round: NewRound = {
    seq: at.seq,
    subject: at.subject,
    index: at.repeat,
    // each repeat is its own stress-ng invocation: the unit of replication
    replicate: at.repeat,
    warmup: false,
    ops: 1,
    total: m.bogoOpsPerSecRealTime,
    value: m.bogoOpsPerSecRealTime,
    unit: 'bogo-ops/s',
    direction: HIGHER,
    metrics,
  };
  return { round, unclassified };
}

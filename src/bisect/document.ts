/**
 * What a bisect found, as one document every reporter only words
 * (src/report/bisect.ts): the endpoints, the mode the determinism check
 * chose, every commit booted in test order (the endpoints first), the
 * outcome, and with --cost the culprit's per-function change against its
 * parent.
 *
 * Format history (BISECT_SCHEMA):
 *   1: first version.
 *   2: `target`: where the boots ran (a LAVA lab's address), null for qemu here.
 */
import type { FunctionChange } from '../compare/cost-functions.ts';
import type { BisectMode } from './mode.ts';
import type { Commit, SearchOutcome, Side } from './search.ts';

export const BISECT_FORMAT = 'hintlab-bisect';
export const BISECT_SCHEMA = 2;

/** One boot of a step: its value, and the stored run that holds it (null from a fake lab). */
export interface BootValue {
  value: number;
  runId: number | null;
}

/** Where a commit's kernel came from in this bisect. */
export type BuildState = 'built' | 'incremental' | 'reused';

/** One commit tested: an endpoint or a step of the search. */
export type BisectStep =
  | { commit: Commit; role: 'good' | 'bad' | 'step'; state: 'measured'; boots: BootValue[]; value: number; side: Side; reused: boolean; build: BuildState; seconds: number }
  | { commit: Commit; role: 'step'; state: 'skip'; reason: string; reused: boolean; seconds: number };

/** What one step measures: the subject (a probe profile or a stressor), and the counter that is the step's value. */
export interface BisectMetric {
  /** The profile (`--profile getppid`) or the stressor's subject (`--stressor fifo`: `fifo@1`). */
  subject: string;
  /** 'instructions/call' under -icount, a cost counter's name (`--metric` under `--cost`), or 'icount-bogo-ops/s' for a stressor. */
  name: string;
  /** How the cost model was set (describeCostModel), null without --cost. */
  costModel: string | null;
}

export interface BisectDocument {
  format: typeof BISECT_FORMAT;
  schema: typeof BISECT_SCHEMA;
  src: string;
  /** `--target`'s address without its token (`lava://lab/qemu`), null for qemu on this machine. */
  target: string | null;
  refs: { good: string; bad: string };
  good: Commit;
  bad: Commit;
  metric: BisectMetric;
  mode: BisectMode;
  /** Commits from good to bad on the first-parent line, both included. */
  commits: number;
  steps: BisectStep[];
  outcome: SearchOutcome;
  /** The first bad commit is a merge: the change came with what it merged (first-parent history is searched). */
  culpritIsMerge: boolean;
  /** Kernels built by this run (not reused). */
  builds: number;
  /** With --cost: the culprit's functions against its parent's (first boot of each); null otherwise or without both tables. */
  functions: { changed: FunctionChange[]; small: number; unchanged: number } | null;
  seconds: number;
}

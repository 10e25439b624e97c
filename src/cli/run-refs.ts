/**
 * The runs `compare` and `report` are given: ids, `#id`s and labels, a side
 * possibly several runs joined by commas. A label may name several runs
 * (every `bench --label-b` stores an A and a B, so a second A/B invocation
 * reuses both labels): it takes the newest, and the reader is told which
 * runs it named and how to take another. A pair of labels whose newest runs
 * were not measured together while one of them was measured with an older
 * run of the other label is refused: comparing them would mix two
 * invocations, and only run ids say which were meant.
 */
import { interleavedPartners } from '../compare/design.ts';
import type { Run, RunWithRounds } from '../model.ts';
import { shellLine } from '../shell.ts';
import { RunNotFoundError, type Store } from '../store/store.ts';
import { type CliIO } from './io.ts';
import { UserError } from '../errors.ts';

/** One reference as resolved: the run taken, and every run its label names (newest first; none for an id). */
export interface ResolvedRef {
  ref: string;
  run: RunWithRounds;
  labelled: Run[];
}

/** `2026-12-03 17:05:01 UTC` */
const when = (run: Run) => `${run.startedAt.replace('T', ' ').slice(0, 19)} UTC`;

/** Resolve a run reference, turning "not found" into a user error. */
export function resolveRunRef(store: Store, ref: string): RunWithRounds {
  try {
    return store.resolveRun(ref);
  } catch (err) {
    // a reference to nothing is a usage error, as every other one: exit 2
    if (err instanceof RunNotFoundError) throw new UserError(err.message, 2);
    throw err;
  }
}

/** Resolve one reference; `labelled` holds the runs its label names when it was read as a label. */
export function resolveRef(store: Store, ref: string): ResolvedRef {
  const run = resolveRunRef(store, ref);
  const byId = String(run.id) === ref.replace(/^#/, '');
  return { ref, run, labelled: byId ? [] : store.runsLabelled(ref) };
}

/** The run measured with `run` in one A/B invocation (the run next to it by id), if any. */
function partnerOf(store: Store, run: RunWithRounds): RunWithRounds | null {
  for (const id of [run.id - 1, run.id + 1]) {
    let other: RunWithRounds;
    try {
      other = store.getRun(id);
    } catch (err) {
      if (err instanceof RunNotFoundError) continue;
      throw err;
    }
    if (interleavedPartners(run, other)) return other;
  }
  return null;
}

/**
 * Refuse two labels whose newest runs come from different invocations when
 * one of them was measured with a run of the other label: the pair and the
 * newest runs are two readings, and only ids can say which is meant.
 */
export function refuseMixedPair(store: Store, a: ResolvedRef, b: ResolvedRef, command: string): void {
  if (a.labelled.length === 0 || b.labelled.length === 0 || interleavedPartners(a.run, b.run)) return;
  for (const [x, other] of [[a, b], [b, a]] as const) {
    const partner = partnerOf(store, x.run);
    if (partner === null || partner.label !== other.ref) continue;
    const [pairA, pairB] = x === a ? [x.run, partner] : [partner, x.run];
    throw new UserError(
      `'${a.ref}' and '${b.ref}' do not name one A/B pair: the newest '${x.ref}', #${x.run.id} (${when(x.run)}), was measured together with #${partner.id} '${other.ref}', ` +
        `but the newest '${other.ref}' is #${other.run.id} (${when(other.run)}), another run. Name the runs by id: ` +
        `'${shellLine(['hintlab', command, String(pairA.id), String(pairB.id)])}' for the pair, or the ids of the runs you meant (see 'hintlab runs')`,
      2,
    );
  }
}

/** One run for `runs RUN` and `export RUN`: a label that names several says which it took, on stderr. */
export function resolveShown(store: Store, ref: string, doing: string, io: CliIO): RunWithRounds {
  const r = resolveRef(store, ref);
  if (r.labelled.length > 1) io.stderr(`note: ${namesText(r)}: ${doing} the newest, #${r.run.id}; give an id for another\n`);
  return r.run;
}

/** After a bench stored runs with these labels: say on stderr which labels now name several runs. */
export function noteReusedLabels(store: Store, labels: readonly (string | null)[], io: CliIO): void {
  const named = labels.flatMap((label) => (label === null ? [] : [{ ref: label, labelled: store.runsLabelled(label) }]));
  const many = named.filter((r) => r.labelled.length > 1);
  if (many.length === 0) return;
  const list = many.map((r) => `label '${r.ref}' now names ${r.labelled.length} runs (${r.labelled.map((x) => `#${x.id}`).join(', ')})`).join('; ');
  io.stderr(`note: ${list}: compare and report take the newest; give a run id for an older one\n`);
}

/** The refs that name several runs: what `note` and `labelAdvice` speak of. */
function reused(refs: readonly ResolvedRef[]): ResolvedRef[] {
  return refs.filter((r) => r.labelled.length > 1);
}

function namesText(r: ResolvedRef): string {
  return `label '${r.ref}' names ${r.labelled.length} runs (${r.labelled.map((x) => `#${x.id} ${when(x)}`).join(', ')})`;
}

/** The command line with each reused label replaced by the id of its next older run: how to take another. */
function olderCommand(command: string, sides: readonly string[], refs: readonly ResolvedRef[]): string {
  const older = sides.map((side) => side.split(',').map((token) => {
    const r = refs.find((x) => x.ref === token.trim() && x.labelled.length > 1);
    return r ? String(r.labelled[1]!.id) : token.trim();
  }).join(','));
  return shellLine(['hintlab', command, ...older]);
}

/** The note that says which run each reused label took, or null when every label names one run. */
export function reusedLabelNote(command: string, sides: readonly string[], refs: readonly ResolvedRef[]): string | null {
  const many = reused(refs);
  if (many.length === 0) return null;
  const took = many.map((r) => `${namesText(r)}: took the newest, #${r.run.id}`).join('; ');
  return `${took}. To compare older runs, give their ids, e.g. '${olderCommand(command, sides, refs)}'`;
}

/**
 * What to do when runs taken from a reused label cannot be compared: the
 * newest runs were probably not the ones meant, so the fix is their ids,
 * never --allow-mismatch.
 */
export function reusedLabelAdvice(command: string, sides: readonly string[], refs: readonly ResolvedRef[]): string | null {
  const many = reused(refs);
  if (many.length === 0) return null;
  return `${many.map((r) => `${namesText(r)} and the newest, #${r.run.id}, was taken`).join('; ')}. If those are not the runs you meant, name them by id, e.g. '${olderCommand(command, sides, refs)}' (see 'hintlab runs')`;
}

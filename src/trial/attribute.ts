/**
 * Which hunk group explains each change B claims: the groups whose change
 * alone goes the same way (the same claimed verdict), checked against the
 * kernel without that group (the change should be gone). One line per
 * subject, e.g.
 *
 *   fifo -33.00 %: kernel/sched/core.c @10432 alone -31.00 %, without it none; others none
 *   getpid +0.40 %: no group alone (all none); together only
 *
 * and, per group, what it moves alone ("nothing" for a hint that changes
 * no measured subject).
 */
import type { Verdict } from '../compare/types.ts';
import { formatChangePct } from '../format/percent.ts';
import { hunkName, type HunkGroup } from './hunks.ts';
import type { Attribution, CommitAttribution, TrialCommitStep, TrialHunk, TrialVariant, VariantRow } from './document.ts';

const CLAIMS: readonly Verdict[] = ['faster', 'slower', 'fewer instructions', 'more instructions'];

export const claims = (v: Verdict): boolean => CLAIMS.includes(v);

/** "kernel/sched/core.c @10432", or "kernel/sched/core.c @120 + @300" for a group of several hunks. */
export function groupName(hunks: readonly TrialHunk[], group: Pick<HunkGroup, 'hunks'>): string {
  const members = hunks.filter((h) => group.hunks.includes(h.index));
  const parts: string[] = [];
  for (const h of members) {
    const sameFile = parts.length > 0 && members[members.indexOf(h) - 1]?.file === h.file;
    parts.push(sameFile ? `@${h.oldStart}` : hunkName(h));
  }
  return parts.join(' + ');
}

/** A variant's word for one subject: "-31.00 %" when claimed, "none", "identical", or "not built". */
export function rowWord(row: VariantRow | undefined): string {
  if (!row) return 'not measured';
  if (claims(row.verdict)) return formatChangePct(row.changePct);
  return row.verdict === 'identical' ? 'identical' : row.verdict === 'no difference proven' ? 'none' : row.verdict;
}

const rowOf = (v: TrialVariant | undefined, subject: string, kind: VariantRow['kind']): VariantRow | undefined => v?.rows.find((r) => r.subject === subject && r.kind === kind);

const quiet = (row: VariantRow | undefined): boolean => row !== undefined && !claims(row.verdict);

function explain(hunks: readonly TrialHunk[], groups: readonly HunkGroup[], variants: readonly TrialVariant[], b: VariantRow): Attribution {
  const variant = (kind: TrialVariant['kind'], g: HunkGroup) => variants.find((v) => v.kind === kind && v.group === g.index);
  /** "-31.00 %", "none", "not built"; undefined without that variant. */
  const word = (v: TrialVariant | undefined) => (v === undefined ? undefined : v.state === 'unbuilt' ? 'not built' : rowWord(rowOf(v, b.subject, b.kind)));
  const by = groups.filter((g) => rowOf(variant('alone', g), b.subject, b.kind)?.verdict === b.verdict);
  const others = groups.filter((g) => !by.includes(g));
  const noisy = others.filter((g) => !quiet(rowOf(variant('alone', g), b.subject, b.kind))).map((g) => `${groupName(hunks, g)} alone ${word(variant('alone', g))}`);
  const head = `${b.subject} ${rowWord(b)}`;
  let line: string;
  if (by.length === 0) {
    const gone = groups.filter((g) => quiet(rowOf(variant('without', g), b.subject, b.kind))).map((g) => groupName(hunks, g));
    line = `${head}: no group alone (${noisy.length ? noisy.join(', ') : 'all none'}); together only${gone.length ? `; gone without ${gone.join(', ')}` : ''}`;
  } else {
    const parts = by.map((g) => {
      const without = word(variant('without', g));
      return `${groupName(hunks, g)} alone ${word(variant('alone', g))}${without === undefined ? '' : `, without it ${without}`}`;
    });
    const rest = noisy.length ? `; others: ${noisy.join(', ')}` : others.length ? '; others none' : '';
    line = `${head}: ${parts.join('; ')}${rest}`;
  }
  return { subject: b.subject, kind: b.kind, b: { changePct: b.changePct, verdict: b.verdict, unit: b.unit }, explainedBy: by.map((g) => g.index), line };
}

/** One attribution per subject B claims a change for, in B's row order. */
export function attribute(hunks: readonly TrialHunk[], groups: readonly HunkGroup[], variants: readonly TrialVariant[], bRows: readonly VariantRow[]): Attribution[] {
  if (variants.length === 0) return [];
  return bRows.filter((r) => claims(r.verdict)).map((r) => explain(hunks, groups, variants, r));
}

/** What a variant changes against A: "nothing", or "getpid +0.40 %, fifo -31.00 %"; null when there is no such variant. */
export function moves(variants: readonly TrialVariant[], kind: TrialVariant['kind'], group: number): string | null {
  const v = variants.find((x) => x.kind === kind && x.group === group);
  if (!v) return null;
  if (v.state === 'unbuilt') return 'does not build';
  const moved = v.rows.filter((r) => claims(r.verdict));
  return moved.length === 0 ? 'nothing' : moved.map((r) => `${r.subject} ${rowWord(r)}`).join(', ');
}

/** `2/3 "sched: add work"`: a commit by its place in the series and its subject. */
export function commitName(c: Pick<TrialCommitStep, 'index' | 'label'>, total: number): string {
  return `${c.index}/${total} ${c.label.endsWith('.patch') || c.label.endsWith('.diff') ? c.label : `"${c.label}"`}`;
}

/**
 * Which commits bring each change B claims: those whose own step (the
 * kernel up to it against the one before) claims the same verdict, e.g.
 *
 *   getppid +2.00 %: 2/3 "sched: add work" +2.00 %; others none
 *   fifo -1.10 %: no single commit (3/3 "x" -0.60 %); together only
 */
export function attributeCommits(commits: readonly TrialCommitStep[], bRows: readonly VariantRow[]): CommitAttribution[] {
  if (commits.length < 2) return [];
  return bRows
    .filter((r) => claims(r.verdict))
    .map((b) => {
      const own = (c: TrialCommitStep) => c.rows.find((r) => r.subject === b.subject && r.kind === b.kind);
      const by = commits.filter((c) => own(c)?.verdict === b.verdict);
      const word = (c: TrialCommitStep) => `${commitName(c, commits.length)} ${c.state === 'unbuilt' ? 'not built' : rowWord(own(c))}`;
      const noisy = commits.filter((c) => !by.includes(c) && !quiet(own(c))).map(word);
      const head = `${b.subject} ${rowWord(b)}`;
      const line = by.length === 0
        ? `${head}: no single commit${noisy.length ? ` (${noisy.join(', ')})` : ''}; together only`
        : `${head}: ${by.map(word).join('; ')}${noisy.length ? `; others: ${noisy.join(', ')}` : '; others none'}`;
      return { subject: b.subject, kind: b.kind, b: { changePct: b.changePct, verdict: b.verdict, unit: b.unit }, broughtBy: by.map((c) => c.index), line };
    });
}

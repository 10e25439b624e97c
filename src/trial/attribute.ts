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
import type { HunkGroup } from './hunks.ts';
import type { Attribution, TrialHunk, TrialVariant, VariantRow } from './document.ts';

const CLAIMS: readonly Verdict[] = ['faster', 'slower', 'fewer instructions', 'more instructions'];

export const claims = (v: Verdict): boolean => CLAIMS.includes(v);

/** "kernel/sched/core.c @10432", or "kernel/sched/core.c @120 + @300" for a group of several hunks. */
export function groupName(hunks: readonly TrialHunk[], group: Pick<HunkGroup, 'hunks'>): string {
  const members = hunks.filter((h) => group.hunks.includes(h.index));
  const parts: string[] = [];
  for (const h of members) {
    const sameFile = parts.length > 0 && members[members.indexOf(h) - 1]?.file === h.file;
    parts.push(sameFile ? `@${h.oldStart}` : `${h.file} @${h.oldStart}`);
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
  const alone = (g: HunkGroup) => variants.find((v) => v.kind === 'alone' && v.group === g.index);
  const without = (g: HunkGroup) => variants.find((v) => v.kind === 'without' && v.group === g.index);
  const by = groups.filter((g) => rowOf(alone(g), b.subject, b.kind)?.verdict === b.verdict);
  const head = `${b.subject} ${rowWord(b)}`;
  const others = groups.filter((g) => !by.includes(g));
  const noisy = others.filter((g) => !quiet(rowOf(alone(g), b.subject, b.kind)));
  const othersText = noisy.length === 0 ? (others.length ? 'others none' : '') : `others: ${noisy.map((g) => `${groupName(hunks, g)} alone ${alone(g)?.state === 'unbuilt' ? 'not built' : rowWord(rowOf(alone(g), b.subject, b.kind))}`).join(', ')}`;
  let line: string;
  if (by.length === 0) {
    const withouts = groups.map(without).filter((v): v is TrialVariant => v !== undefined);
    const gone = withouts.filter((v) => quiet(rowOf(v, b.subject, b.kind)));
    const need = gone.length ? `; gone without ${gone.map((v) => groupName(hunks, groups.find((g) => g.index === v.group)!)).join(', ')}` : '';
    line = `${head}: no group alone${noisy.length ? ` (${othersText.replace('others: ', '')})` : ' (all none)'}; together only${need}`;
  } else {
    const parts = by.map((g) => {
      const w = without(g);
      const wText = w ? `, without it ${w.state === 'unbuilt' ? 'not built' : rowWord(rowOf(w, b.subject, b.kind))}` : '';
      return `${groupName(hunks, g)} alone ${rowWord(rowOf(alone(g), b.subject, b.kind))}${wText}`;
    });
    line = `${head}: ${parts.join('; ')}${othersText ? `; ${othersText}` : ''}`;
  }
  return { subject: b.subject, kind: b.kind, b: { changePct: b.changePct, verdict: b.verdict, unit: b.unit }, explainedBy: by.map((g) => g.index), line };
}

/** One attribution per subject B claims a change for, in B's row order. */
export function attribute(hunks: readonly TrialHunk[], groups: readonly HunkGroup[], variants: readonly TrialVariant[], bRows: readonly VariantRow[]): Attribution[] {
  if (variants.length === 0) return [];
  return bRows.filter((r) => claims(r.verdict)).map((r) => explain(hunks, groups, variants, r));
}

/** What a group changes on its own: "nothing", or "getpid +0.40 %, fifo -31.00 %". */
export function movesAlone(variants: readonly TrialVariant[], group: number): string {
  const v = variants.find((x) => x.kind === 'alone' && x.group === group);
  if (!v) return 'not measured';
  if (v.state === 'unbuilt') return 'does not build alone';
  const moved = v.rows.filter((r) => claims(r.verdict));
  return moved.length === 0 ? 'nothing' : moved.map((r) => `${r.subject} ${rowWord(r)}`).join(', ');
}

/**
 * A trial's per-hunk evidence (src/trial/per-hunk.ts) in every format: how
 * the variants were made, one line per change of B naming the hunk that
 * explains it ("fifo -33.00 %: kernel/sched/core.c @10432 alone -31.00 %,
 * without it none; others none"), and a table of what each group moves
 * alone and left out. JSON gets `perHunk` per hunk as the issue tracker's
 * tools read it: { file, oldStart, newStart, alone: [...], without: [...] }.
 */
import { groupName, moves } from '../trial/attribute.ts';
import { fixed } from '../format/numbers.ts';
import { BOOT_SECONDS, type PerHunkEstimate, VARIANT_BUILD_SECONDS } from '../trial/per-hunk.ts';
import type { TrialDocument, TrialPerHunk, TrialVariant, VariantRow } from '../trial/document.ts';
import type { Table } from './tables.ts';
import { lkmlPara } from './wrap.ts';

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** How the variants were made and measured, in one sentence. */
export function perHunkIntro(p: TrialPerHunk): string {
  if (p.skipped) return `Per hunk: ${p.skipped.replace(/^--per-hunk: /, '')}.`;
  const alone = p.variants.filter((v) => v.kind === 'alone').length;
  const without = p.variants.length - alone;
  const grouped = p.groups.filter((g) => g.hunks.length > 1);
  const groupsText = grouped.length
    ? `; grouped because they cannot build apart: ${grouped.map((g) => `${groupName(p.hunks, g)} (${g.names.join(', ')})`).join('; ')}`
    : '';
  const unbuilt = p.variants.filter((v) => v.state === 'unbuilt').map((v) => v.name);
  return (
    `Per hunk: ${plural(p.hunks.length, 'hunk')} in ${plural(p.groups.length, 'group')}${groupsText}; ` +
    `${plural(alone, 'kernel')} of A + one group${without ? ` and ${without} of B without one` : ''}, each from A's objects, booted like B and compared with A` +
    `${unbuilt.length ? `; ${unbuilt.join(', ')} did not build on ${unbuilt.length === 1 ? 'its' : 'their'} own` : ''}.`
  );
}

/** The attribution lines, or what to say when B claims no change. */
export function perHunkLines(p: TrialPerHunk): string[] {
  if (p.skipped) return [];
  const quietGroups = p.groups.filter((g) => moves(p.variants, 'alone', g.index) === 'nothing').map((g) => groupName(p.hunks, g));
  const quiet = quietGroups.length ? [`Alone, ${quietGroups.join(', ')} ${quietGroups.length === 1 ? 'moves' : 'move'} no subject.`] : [];
  if (p.attribution.length === 0) return ['B changes no subject, so no hunk has a change to explain.', ...quiet];
  return [...p.attribution.map((a) => a.line), ...quiet];
}

/** The lkml block: the intro and one line per change (never wider than 72 columns). */
export function perHunkLkml(doc: TrialDocument): string[] {
  const p = doc.perHunk;
  if (!p) return [];
  return [...lkmlPara(perHunkIntro(p)), ...perHunkLines(p).flatMap((l) => lkmlPara(l, '  ', '    '))];
}

/** What B changes without a group; with two groups that kernel is the other group alone, and is not built again. */
function leftOut(p: TrialPerHunk, group: number): string {
  return moves(p.variants, 'without', group) ?? (p.groups.length === 2 ? 'the other alone' : '');
}

/** Group, hunks, lines changed, what it moves alone, what B moves without it. */
export function perHunkTable(p: TrialPerHunk): Table {
  const rows = p.groups.map((g) => {
    const hunks = p.hunks.filter((h) => g.hunks.includes(h.index));
    return [String(g.index), groupName(p.hunks, g), hunks.map((h) => `+${h.added} -${h.removed}`).join(', '), moves(p.variants, 'alone', g.index) ?? 'not measured', leftOut(p, g.index)];
  });
  return { id: 'per-hunk', caption: 'Per hunk group: what it changes alone (A + it) and what B changes without it', headers: ['group', 'hunks', 'lines', 'alone', 'B without it'], rows, numeric: [] };
}

/** Text and md: the intro, the lines, the table; the unbuilt variants' compiler errors. */
export function perHunkSentences(p: TrialPerHunk): string[] {
  const errors = p.variants.filter((v): v is TrialVariant & { error: string } => v.state === 'unbuilt' && v.error !== undefined).map((v) => `${v.name} did not build: ${v.error.split('\n').slice(0, 3).join(' ')}`);
  return [perHunkIntro(p), ...perHunkLines(p), ...errors];
}

const jsonRow = (r: VariantRow) => ({ subject: r.subject, kind: r.kind, unit: r.unit, changeInUnit: r.changeInUnit, changePct: r.changePct, verdict: r.verdict, ...(r.exact ? { exact: true } : {}) });

/** `perHunk` of the JSON report: one entry per hunk, its group's variants' rows. */
export function perHunkJson(p: TrialPerHunk | undefined) {
  if (!p) return undefined;
  const rowsOf = (kind: 'alone' | 'without', group: number) => {
    const v = p.variants.find((x) => x.kind === kind && x.group === group);
    return v?.state === 'measured' ? v.rows.map(jsonRow) : null;
  };
  return p.hunks.map((h) => {
    const g = p.groups.find((x) => x.index === h.group)!;
    return {
      file: h.file,
      oldStart: h.oldStart,
      newStart: h.newStart,
      added: h.added,
      removed: h.removed,
      group: h.group,
      groupedWith: g.hunks.filter((i) => i !== h.index),
      alone: rowsOf('alone', h.group),
      without: rowsOf('without', h.group),
      notBuilt: p.variants.filter((v) => v.group === h.group && v.state === 'unbuilt').map((v) => v.kind),
    };
  });
}

/** "7.7 h", "25 min", "40 s": an estimate's order of size. */
export function roughTime(seconds: number): string {
  if (seconds >= 3600) return `${fixed(seconds / 3600, 1)} h`;
  return seconds >= 120 ? `${Math.round(seconds / 60)} min` : `${Math.round(seconds)} s`;
}

/** The --per-hunk plan before anything builds: "8 hunks: up to 16 kernels ... and 48 boots, about 16 min more (...)". */
export function perHunkPlanText(e: PerHunkEstimate): string {
  return (
    `${plural(e.hunks, 'hunk')} in the patches: up to ${plural(e.kernels, 'kernel')} built from A's objects (each hunk alone${e.hunks > 2 ? ', and B without each' : ''}) and ${plural(e.boots, 'boot')}, ` +
    `about ${roughTime(e.seconds)} more (at ${VARIANT_BUILD_SECONDS} s a build from A's objects and ${BOOT_SECONDS} s a boot, as a one-file hint on linux-source-6.12 took on 2 cores)`
  );
}


/**
 * A trial's per-commit evidence (src/trial/per-commit.ts) in every format:
 * the plan said before anything builds, how the kernels were made, one
 * line per change of B naming the commits that bring it
 * ("getppid +2.00 %: 2/3 \"sched: add work\" +2.00 %; others none"), and a
 * table of what each commit moves against the kernel before it. JSON gets
 * the document's `perCommit` as it is.
 */
import { commitName, rowWord, claims } from '../trial/attribute.ts';
import { BOOT_SECONDS, VARIANT_BUILD_SECONDS } from '../trial/per-hunk.ts';
import type { PerCommitEstimate } from '../trial/per-commit.ts';
import type { TrialDocument, TrialPerCommit } from '../trial/document.ts';
import type { Table } from './tables.ts';
import { roughTime } from './trial-hunks.ts';
import { lkmlPara } from './wrap.ts';

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The --per-commit plan before anything builds: "3 patches in the series: 2 kernels ... and 6 boots, about 2 min more (...)". */
export function perCommitPlanText(e: PerCommitEstimate): string {
  if (e.kernels === 0) return `${plural(e.patches, 'patch', 'patches')} in the series: B is its only kernel, nothing more to build`;
  return (
    `${plural(e.patches, 'patch', 'patches')} in the series: ${plural(e.kernels, 'kernel')} of A plus the first patches, each built from the objects of the one before, and ${plural(e.boots, 'boot')}, ` +
    `about ${roughTime(e.seconds)} more (at ${VARIANT_BUILD_SECONDS} s a build from earlier objects and ${BOOT_SECONDS} s a boot, as a one-file hint on linux-source-6.12 took on 2 cores)`
  );
}

/** How the kernels were made and compared, in one sentence. */
export function perCommitIntro(p: TrialPerCommit): string {
  const n = p.commits.length;
  if (n < 2) return 'Per commit: the series is one patch, so B is its only kernel.';
  const unbuilt = p.commits.filter((c) => c.state === 'unbuilt' && c.kernel !== 'B').map((c) => c.kernel);
  return (
    `Per commit: ${plural(n - 1, 'kernel')} of A plus the first 1-${n - 1} of ${n} patches, each built from the objects of the one before and booted like B; ` +
    `each commit is its kernel against the one before it (the last is B)${unbuilt.length ? `; ${unbuilt.join(', ')} did not build` : ''}.`
  );
}

/** The attribution lines, or what to say when B claims no change. */
export function perCommitLines(p: TrialPerCommit): string[] {
  if (p.commits.length < 2) return [];
  const n = p.commits.length;
  const quiet = p.commits.filter((c) => c.state === 'measured' && !c.rows.some((r) => claims(r.verdict))).map((c) => commitName(c, n));
  const still = quiet.length ? [`${quiet.join(', ')} ${quiet.length === 1 ? 'moves' : 'move'} no subject.`] : [];
  if (p.attribution.length === 0) return ['B changes no subject, so no commit has a change to explain.', ...still];
  return [...p.attribution.map((a) => a.line), ...still];
}

/** The lkml block: the intro and one line per change. */
export function perCommitLkml(doc: TrialDocument): string[] {
  const p = doc.perCommit;
  if (!p) return [];
  return [...lkmlPara(perCommitIntro(p)), ...perCommitLines(p).flatMap((l) => lkmlPara(l, '  ', '    '))];
}

/** Commit, hash, kernel, against, what it moves. */
export function perCommitTable(p: TrialPerCommit): Table {
  const n = p.commits.length;
  const rows = p.commits.map((c) => {
    const moved = c.rows.filter((r) => claims(r.verdict));
    const what = c.state === 'unbuilt' ? 'does not build' : moved.length === 0 ? 'nothing' : moved.map((r) => `${r.subject} ${rowWord(r)}`).join(', ');
    return [commitName(c, n), c.commit ? c.commit.slice(0, 12) : '', `${c.kernel} vs ${c.against}`, what];
  });
  return { id: 'per-commit', caption: 'Per commit: what each commit changes (its kernel against the one before it)', headers: ['commit', 'hash', 'kernels', 'changes'], rows, numeric: [] };
}

/** Text and md: the intro, the lines, the unbuilt kernels' compiler errors. */
export function perCommitSentences(p: TrialPerCommit): string[] {
  const errors = p.commits.filter((c) => c.state === 'unbuilt' && c.error !== undefined).map((c) => `${c.kernel} did not build: ${c.error!.split('\n').slice(0, 3).join(' ')}`);
  return [perCommitIntro(p), ...perCommitLines(p), ...errors];
}

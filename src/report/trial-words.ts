/**
 * The sentences every format of a trial report shares (src/trial/document.ts
 * is what they describe): the headline, what changed in the object code,
 * how the kernels were built and where each hunk applied, how the A/B
 * boots were measured, the step list with wall times, and the reproduce
 * commands rendered for the reader. Pure functions of the document.
 */
import { basename } from 'node:path';
import { cellPhrase } from '../codegen/render.ts';
import type { AppliedFile, KernelManifest } from '../kernel/manifest.ts';
import { fixed } from '../format/numbers.ts';
import type { ObjectCodegen } from '../trial/codegen.ts';
import type { TrialDocument, TrialKernel, TrialStep } from '../trial/document.ts';
import { argvText, type ReproduceContext } from './reproduce.ts';
import type { Table } from './tables.ts';

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;


/** "x, y and z". */
export function listText(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** Seconds as the step list shows them: one decimal below 100 s, whole seconds above. */
export function secondsText(s: number): string {
  return s < 100 ? `${fixed(s, 1)} s` : `${Math.round(s)} s`;
}

/** How a report names a patch: its subject in quotes (an mbox series, a commit), or its file's name. */
export function patchLabel(p: { subject?: string; path: string }): string {
  return p.subject !== undefined ? `"${p.subject}"` : basename(p.path);
}

/**
 * "hintlab trial #3: Linux 6.12.117, A = the tree, B = A + fix.patch." (the
 * tree's path is in the reproduce commands); with --range, A and B are
 * the range's ends: "A = v1 1a2b3c4d5e6f ("base"), B = 2 commits later, 9f8e... ("x")".
 */
export function headline(doc: TrialDocument): string {
  const g = doc.git;
  if (g) {
    const [base, head] = g.range.split('..');
    const n = doc.patches.length;
    return `hintlab trial #${doc.trialId}: Linux ${doc.source.version}, A = ${base} ${commitText(g.base)}, B = ${head} ${commitText(g.head)}, ${n} commit${n === 1 ? '' : 's'} later: ${listText(doc.patches.map(patchLabel))}.`;
  }
  const names = listText(doc.patches.map(patchLabel));
  return `hintlab trial #${doc.trialId}: Linux ${doc.source.version}, A = the tree, B = A + ${names}.`;
}

/** `1a2b3c4d5e6f ("subject")`. */
function commitText(c: { commit: string; subject: string }): string {
  return `${c.commit.slice(0, 12)} ("${c.subject}")`;
}

/** "kernel/sched/build_policy.o (it #includes kernel/sched/syscalls.c)". */
export function objectText(o: ObjectCodegen): string {
  const files = listText(o.files);
  if (o.reach === 'source') return o.object;
  return `${o.object} (it #includes ${files})`;
}

/** One sentence per compared object, then the counts of the others. */
export function codegenSentences(doc: TrialDocument): string[] {
  const cg = doc.codegen;
  const intro = `Code (${cg.compiler === 'gcc' ? compilerShort(doc.kernels.A.manifest) : cg.compiler} -${cg.opt}, the objects of the measured kernels):`;
  if (cg.objects.length === 0) return [`${intro} no object of the build reads ${listText(cg.files)}.`];
  const out = [intro];
  for (const o of cg.objects.filter((x) => x.state === 'compared')) {
    const cell = o.result?.cells[0];
    out.push(`${objectText(o)}: ${cell ? cellPhrase(cell) : 'not compared'}.`);
  }
  const named = (state: ObjectCodegen['state']) => cg.objects.filter((o) => o.state === state).map((o) => o.object);
  const same = named('identical-bytes');
  if (same.length) out.push(`${plural(same.length, 'other object')} the patched files reach ${same.length === 1 ? 'is' : 'are'} byte-identical in A and B${same.length <= 4 ? ` (${listText(same)})` : ''}.`);
  const left = named('not-compared');
  if (left.length) out.push(`Not compared (over --max-objects ${cg.limit}): ${plural(left.length, 'object')} that differ${left.length === 1 ? 's' : ''}: ${listText(left.slice(0, 6))}${left.length > 6 ? ', ...' : ''}.`);
  for (const state of ['only-in-A', 'only-in-B'] as const) {
    const only = named(state);
    if (only.length) out.push(`Only in ${state.slice(-1)}: ${listText(only)}.`);
  }
  return out;
}

/** "gcc 12.2": the build's compiler, short. */
export function compilerShort(m: KernelManifest): string {
  const v = /(\d+\.\d+)(?:\.\d+)?\s*$/.exec(m.compiler)?.[1];
  return /gcc/i.test(m.compiler) && v ? `gcc ${v}` : m.compiler;
}

/** "tinyconfig + hintlab fragment + behave": what a kernel's configuration was made of. */
export function configText(m: KernelManifest): string {
  const base = m.box ? m.box.url : m.base.split(' ')[0]!;
  const fragments = (m.fragments ?? []).map((f) => ` + ${f} fragment`).join('');
  return `${base} + hintlab fragment${fragments}${m.fragmentFile ? ` + ${m.fragmentFile}` : ''}`;
}

/** "built in 612 s, 940 objects compiled" / "built from A's objects in 38 s, 4 objects compiled" / "reused (built in 612 s)". */
export function kernelBuildText(k: TrialKernel): string {
  const m = k.manifest;
  const from = m.incremental ? ` from ${m.incremental.label}'s objects` : '';
  const how = `built${from} in ${secondsText(m.buildSeconds)}, ${m.objectsCompiled ?? 'an unrecorded number of'} objects compiled`;
  return k.state === 'reused' ? `${how} (reused: inputs unchanged)` : how;
}

/** The kernels' facts: one sentence for what they share, one per kernel. */
export function kernelSentences(doc: TrialDocument): string[] {
  const { A, B } = doc.kernels;
  const m = A.manifest;
  const release = m.release ? `uname -r ${m.release}` : 'release not recorded';
  const out = [
    `Kernels: Linux ${m.source.version} (${release}), ${configText(m)}, -${m.opt}, ${m.compiler}.`,
    `A: config sha256:${m.configSha256.slice(0, 16)}, ${kernelBuildText(A)}.`,
    `B: config sha256:${B.manifest.configSha256.slice(0, 16)}, ${kernelBuildText(B)}.`,
  ];
  const dropped = [...new Set([...m.droppedOptions, ...B.manifest.droppedOptions])];
  if (dropped.length) out.push(`Dropped by olddefconfig (dependencies not met): ${dropped.join(', ')}.`);
  const debug = doc.kernels.debug;
  if (debug) out.push(`Behaviour boots: A-debug and B-debug, ${configText(debug.A.manifest)}, never measured (debug checks change timing); ${kernelBuildText(debug.A)}; ${kernelBuildText(debug.B)}.`);
  return out;
}

/** "hunks 1-3 at lines 625, 640 and 1051, no offset, no fuzz" for one file. */
export function hunksText(f: AppliedFile): string {
  const lines = f.hunks.map((h) => (h.offsetLines === 0 ? String(h.line) : `${h.line} (offset ${h.offsetLines > 0 ? '+' : ''}${h.offsetLines})`));
  const shifted = f.hunks.filter((h) => h.offsetLines !== 0).length;
  const fuzzed = f.hunks.filter((h) => h.fuzz > 0).length;
  const which = f.hunks.length === 1 ? 'hunk' : `${f.hunks.length} hunks`;
  return `${f.file}: ${which} at line${f.hunks.length === 1 ? '' : 's'} ${listText(lines)}, ${shifted ? `${shifted} with an offset` : 'no offset'}, ${fuzzed ? `${fuzzed} with fuzz` : 'no fuzz'}`;
}

/** One sentence per patch: its name, hash and where each hunk applied. */
export function patchSentences(doc: TrialDocument): string[] {
  return doc.patches.map((p) => {
    const where = p.applied ? p.applied.map(hunksText).join('; ') : `${listText(p.files)} (where its hunks applied was not recorded: B was built before hintlab recorded it)`;
    return `Patch ${patchLabel(p)}${p.commit ? ` (commit ${p.commit.slice(0, 12)}${p.author ? `, ${p.author}` : ''})` : p.author ? ` (${p.author})` : ''} sha256:${p.sha256.slice(0, 16)}, applied with patch -p1 --fuzz=0: ${where}.`;
  });
}

/** How the boots were measured: order, units, clock. */
export function measuredIntro(doc: TrialDocument): string {
  const m = doc.measured;
  const perKernel = m.order.filter((x) => x === 'A').length;
  const clock = m.icount ? `qemu ${m.accel.accel} -icount (instructions per call)` : `${m.accel.accel.toUpperCase()} (${m.unit}; ${m.accel.why})`;
  return `Measured: A/B in ${clock}, ${perKernel} boots per kernel in the order ${m.order.join(' ')}, each boot one unit; ${m.rounds} rounds per profile and boot after ${m.warmups} warm-up${m.warmups === 1 ? '' : 's'}; runs ${m.runs.A.label} and ${m.runs.B.label}.`;
}

/** "build A 612 s (built), build B 38.1 s, ..." with what each reused step cost when it was made. */
/** "build A", "build A (debug)", "codegen". */
export function stepName(name: TrialStep['name']): string {
  return name.replace('-', ' ').replace('-debug', ' (debug)');
}

export function stepText(s: TrialStep): string {
  const name = stepName(s.name);
  const earlier = s.earlierSeconds !== undefined ? `, made earlier in ${secondsText(s.earlierSeconds)}` : '';
  return `${name} ${secondsText(s.seconds)}${s.state === 'reused' ? ` (reused${earlier})` : ''}`;
}

export function stepsSentence(doc: TrialDocument): string {
  const total = doc.steps.reduce((t, s) => t + s.seconds, 0);
  return `Steps (wall time): ${doc.steps.map(stepText).join(', ')}; ${secondsText(total)} in all.`;
}

/** The commands, rendered for a reader in `ctx` (paths relative to it, under ~/, or absolute). */
export function reproduceLines(doc: TrialDocument, ctx: ReproduceContext | undefined): { part: string; note?: string; line: string }[] {
  const c: ReproduceContext = ctx ?? { db: doc.db, cwd: doc.cwd, home: null };
  return doc.reproduce.map((r) => ({ part: r.part, ...(r.note ? { note: r.note } : {}), line: argvText(r.argv, r.part === 'trial' ? doc.cwd : null, c) }));
}

/** Every hunk of every patch: where it applied, its offset and fuzz. */
export function hunksTable(doc: TrialDocument): Table {
  return {
    id: 'hunks',
    caption: 'Where each hunk applied (patch -p1 --fuzz=0, its own report)',
    headers: ['Patch', 'File', 'Hunk', 'Line', 'Offset (lines)', 'Fuzz'],
    rows: doc.patches.flatMap((p) =>
      (p.applied ?? []).flatMap((f) => f.hunks.map((h) => [patchLabel(p), f.file, String(h.hunk), String(h.line), String(h.offsetLines), String(h.fuzz)])),
    ),
    numeric: [2, 3, 4, 5],
  };
}

/** The steps: state, wall time, what a reused one took when it was made, what it did. */
export function stepsTable(doc: TrialDocument): Table {
  return {
    id: 'steps',
    caption: 'Steps of the trial (wall time of each in this trial)',
    headers: ['Step', 'State', 'Wall time (s)', 'Made earlier in (s)', 'Result'],
    rows: doc.steps.map((s) => [s.title, s.state, fixed(s.seconds, 1), s.earlierSeconds === undefined ? '' : fixed(s.earlierSeconds, 1), s.summary]),
    numeric: [2, 3],
  };
}

/** The objects the patched files reach and what became of each. */
export function objectsTable(doc: TrialDocument): Table {
  const state: Record<ObjectCodegen['state'], string> = {
    compared: 'compared',
    'identical-bytes': 'byte-identical',
    'not-compared': `not compared (over --max-objects ${doc.codegen.limit})`,
    'only-in-A': 'only in A',
    'only-in-B': 'only in B',
  };
  return {
    id: 'objects',
    caption: 'Objects that read a patched file (from kbuild\'s .cmd files)',
    headers: ['Object', 'Reaches', 'Patched files', 'Result'],
    rows: doc.codegen.objects.map((o) => [o.object, o.reach === 'source' ? 'its source' : o.reach === 'includes' ? '#includes it' : 'header', o.files.join(', '), o.state === 'compared' && o.result?.cells[0] ? cellPhrase(o.result.cells[0]) : state[o.state]]),
    numeric: [],
  };
}

/**
 * What `hintlab kernel build` prints at the end: what was built and from
 * what, where the image and manifest are, the options olddefconfig dropped
 * or left as modules, and the command that boots it. Text only; the CLI
 * decides where it goes.
 */
import type { KernelBuildResult } from '../kernel/build.ts';
import { formatSeconds } from '../format/durations.ts';

/** The parts of the summary by stream: `head` and `next` on stdout, each of `warnings` on stderr between them. */
export interface KernelBuildText {
  head: string;
  warnings: string[];
  next: string;
}

function how(result: KernelBuildResult, seconds: number): string {
  if (result.state === 'reused') return 'up to date (nothing changed since the last build; reused)';
  const m = result.manifest;
  const from = m.incremental ? `, incremental from ${m.incremental.label} (${m.incremental.dir})` : '';
  return `built in ${formatSeconds(seconds, 0)}${from}, ${m.objectsCompiled ?? '?'} objects compiled`;
}

function head(result: KernelBuildResult, seconds: number): string {
  const m = result.manifest;
  const lines = [
    `kernel ${m.label}: Linux ${m.source.version}, ${m.patches.length} patch(es), ${m.box ? m.box.url : m.base.split(' ')[0]} -${m.opt}: ${how(result, seconds)}`,
    `  image:    ${result.dir}/${m.image}`,
    `  manifest: ${result.dir}/hintlab-kernel.json`,
    ...(m.release ? [`  release:  ${m.release}`] : []),
    ...(m.box ? [`  base:     ${m.box.url}:${m.box.path} (box kernel ${m.box.release}) sha256:${m.box.sha256.slice(0, 16)}`] : []),
    ...(m.modules ? [`  modules:  ${m.modules === 'local-builtin' ? 'built in: those the box had loaded (localyesconfig); the others dropped' : 'all built in (mod2yesconfig)'}`] : []),
    `  config:   sha256:${m.configSha256.slice(0, 16)}`,
    `  compiler: ${m.compiler}`,
    ...m.patches.map((p) => `  patch:    ${p.path} sha256:${p.sha256.slice(0, 16)} (${p.files.join(', ')})`),
  ];
  return `${lines.join('\n')}\n`;
}

/** The summary of a build that took `seconds` (a reused build names none). */
export function kernelBuildText(result: KernelBuildResult, seconds: number): KernelBuildText {
  const m = result.manifest;
  const warnings = m.droppedOptions.map((d) => `warning: olddefconfig dropped ${d}: its dependencies are not met in this configuration\n`);
  if (result.state === 'built' && result.modulesNotBuilt.length > 0) {
    const list = result.modulesNotBuilt;
    warnings.push(`warning: ${list.length} option(s) can only be modules and were not built (${list.slice(0, 8).join(', ')}${list.length > 8 ? ', ...' : ''}); see ${result.dir}/config\n`);
  }
  return { head: head(result, seconds), warnings, next: `boot it with: hintlab vm --kernel ${m.label}=${result.dir} ...\n` };
}

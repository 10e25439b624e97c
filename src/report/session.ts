/**
 * What `hintlab session` prints: each event's line as it happens (the box,
 * each step's boot and measurement, the way home), the compare command for
 * the complete steps, and the list of stored sessions. Text only; the CLI
 * decides where it goes.
 */
import type { SessionKernel } from '../session/plan.ts';
import type { Returned, SessionBox, StepEnd } from '../session/runner.ts';
import type { SessionRecord, StepRecord } from '../store/sessions.ts';
import type { BootReport } from '../targets/target.ts';
import { formatSecondsOfMs, formatSeconds } from '../format/durations.ts';

/** A session starting or resuming: its id, its box and its steps. */
export function sessionHeadLine(id: number, resumed: boolean, target: string, steps: number): string {
  return `session #${id}${resumed ? ' (resumed)' : ''}: ${target}, ${steps} steps\n`;
}

/** How a boot went, in one line: how long hintlab waited, when the box went down, what it runs now. */
export function bootLine(r: BootReport): string {
  const down = r.downAfterMs === null ? 'not caught down' : `down by ${formatSecondsOfMs(r.downAfterMs)}`;
  const copy = r.copyMs > 0 ? `image copied or checked in ${formatSecondsOfMs(r.copyMs)}, ` : '';
  const fell = r.fellBack ? ` (kexec -l refused: ${r.fellBack}; used the one-shot GRUB entry)` : '';
  const dog = r.watchdogSeconds === null ? '' : `; watchdog armed (${r.watchdogSeconds} s)`;
  return `${copy}${r.command}: up after ${formatSecondsOfMs(r.waitedMs)} (${down}, ${r.attempts} login${r.attempts === 1 ? '' : 's'}); runs ${r.release}${fell}${dog}`;
}

/** Where the box goes at the end, as planned from what it has. */
function wayHome(box: SessionBox): string {
  const h = box.home;
  return h.bootImage ? `kexec of ${h.bootImage} (else a reboot)` : `a reboot to its default entry (no /boot/vmlinuz-${h.release} there for kexec)`;
}

/** The box reached: what it runs, where the session started, and how it goes back. */
export function boxLine(box: SessionBox, resumed: boolean): string {
  return `${box.name} runs ${box.facts.release} (${box.facts.cmdline})${resumed ? `; it started the session on ${box.home.release}` : ''}; at the end it goes back to ${box.home.release} by ${wayHome(box)}`;
}

const at = (step: StepRecord, steps: number): string => `step ${step.index + 1}/${steps}`;

/** A step starting: the kernel it boots and the run it measures. */
export function stepStartLine(step: StepRecord, steps: number, kernel: SessionKernel): string {
  return `${at(step, steps)}: booting kernel ${kernel.label} (${kernel.release}) for ${step.runLabel}`;
}

/** A step's kernel up: the boot line and the boot token the box showed. */
export function bootedLine(step: StepRecord, steps: number, report: BootReport): string {
  return `${at(step, steps)}: ${bootLine(report)}; verified hintlab.boot=${/hintlab\.boot=(\S+)/.exec(report.cmdline)?.[1] ?? '?'}`;
}

/** A step's end: complete with its run and time (and the warnings on its figures), or FAILED with the reason indented. */
export function stepEndText(step: StepRecord, steps: number, end: StepEnd): string {
  return end.state === 'complete'
    ? [`${at(step, steps)}: ${step.runLabel} complete (run #${end.runId}, measured in ${formatSeconds(end.seconds, 1)})`, ...end.warnings.map((w) => `warning: ${step.runLabel}: ${w}`)].join('\n')
    : `${at(step, steps)}: ${step.runLabel} FAILED\n${end.reason.replace(/^/gm, '  ')}`;
}

/** The way home starting. */
export function returnStartLine(box: SessionBox): string {
  return `returning ${box.name} to ${box.home.release}`;
}

/** Where the session left the box. */
export function returnedLine(r: Returned): string {
  if (r.state === 'kept') return `the box stays on ${r.release} (--keep-on-failure): its watchdog is cancelled; reboot it, or resume the session, to bring it back`;
  if (r.state === 'failed') return `the box could not be given back: ${r.reason}`;
  return r.report ? `back home: ${bootLine(r.report)}` : 'back home: the box already runs the kernel it started on';
}

/**
 * The compare command for a session's complete steps: each kernel's runs
 * given together (boots are the units); with fewer than 3 boots of a
 * kernel, what to boot for a claim.
 */
export function sessionCompareLine(rec: SessionRecord, db: string | undefined): string | undefined {
  const byKernel = new Map<string, string[]>();
  for (const s of rec.steps.filter((x) => x.status === 'complete')) byKernel.set(s.kernelLabel, [...(byKernel.get(s.kernelLabel) ?? []), s.runLabel]);
  const [a, b] = [...byKernel.values()];
  if (!a || !b) return undefined;
  const few = Math.min(a.length, b.length) < 3 ? '\n  (fewer than 3 boots per kernel: compare will say insufficient units; boot each kernel 3 or more times, e.g. --order ABABAB or --repeat 3)' : '';
  return `compare with: hintlab compare ${a.join(',')} ${b.join(',')}${db ? ` --db ${db}` : ''}${few}\n`;
}

/** `hintlab session --list`: one line per session. */
export function sessionList(rec: SessionRecord[]): string {
  if (rec.length === 0) return 'no sessions\n';
  return rec
    .map((r) => {
      const done = r.steps.filter((s) => s.status === 'complete').length;
      const box = r.box === 'home' ? 'box home' : r.box === 'away' ? 'box left on a test kernel' : r.box === 'unknown' ? 'box not given back' : 'box not reached';
      return `#${r.id}  ${r.status.padEnd(11)} ${done}/${r.steps.length} steps  ${r.steps.map((s) => s.kernelLabel).join('')}  ${r.target}  ${box}  ${r.createdAt}\n`;
    })
    .join('');
}

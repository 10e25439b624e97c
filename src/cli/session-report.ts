/** What `hintlab session` prints as each step happens, and at the end: the boots' table and the compare command. */
import type { SessionKernel } from '../session/plan.ts';
import type { Returned, SessionBox, SessionDeps, SessionResult, StepEnd } from '../session/runner.ts';
import type { SessionRecord, StepRecord } from '../store/sessions.ts';
import type { Store } from '../store/store.ts';
import type { BootReport } from '../targets/target.ts';
import { stepsTable } from '../vm/summary.ts';
import type { CliIO } from './io.ts';
import type { Progress } from './progress.ts';

const s1 = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** How a boot went, in one line: how long hintlab waited, when the box went down, what it runs now. */
export function bootLine(r: BootReport): string {
  const down = r.downAfterMs === null ? 'not caught down' : `down by ${s1(r.downAfterMs)}`;
  const copy = r.copyMs > 0 ? `image copied or checked in ${s1(r.copyMs)}, ` : '';
  const fell = r.fellBack ? ` (kexec -l refused: ${r.fellBack}; used the one-shot GRUB entry)` : '';
  const dog = r.watchdogSeconds === null ? '' : `; watchdog armed (${r.watchdogSeconds} s)`;
  return `${copy}${r.command}: up after ${s1(r.waitedMs)} (${down}, ${r.attempts} login${r.attempts === 1 ? '' : 's'}); runs ${r.release}${fell}${dog}`;
}

/** Where the box goes at the end, as planned from what it has. */
function wayHome(box: SessionBox): string {
  const h = box.home;
  return h.bootImage ? `kexec of ${h.bootImage} (else a reboot)` : `a reboot to its default entry (no /boot/vmlinuz-${h.release} there for kexec)`;
}

/** The progress lines of a session, on stderr as they happen. */
export function sessionEvents(io: CliIO, bar: Progress, steps: () => number): Pick<SessionDeps, 'onBox' | 'onStepStart' | 'onBooted' | 'onRound' | 'onStepEnd' | 'onReturnStart' | 'onReturned'> {
  const say = (text: string): void => {
    bar.clear();
    io.stderr(`${text}\n`);
  };
  const at = (step: StepRecord): string => `step ${step.index + 1}/${steps()}`;
  return {
    onBox: (box, resumed) =>
      say(`${box.name} runs ${box.facts.release} (${box.facts.cmdline})${resumed ? `; it started the session on ${box.home.release}` : ''}; at the end it goes back to ${box.home.release} by ${wayHome(box)}`),
    onStepStart: (step: StepRecord, kernel: SessionKernel) => say(`${at(step)}: booting kernel ${kernel.label} (${kernel.release}) for ${step.runLabel}`),
    onBooted: (step, report) => say(`${at(step)}: ${bootLine(report)}; verified hintlab.boot=${/hintlab\.boot=(\S+)/.exec(report.cmdline)?.[1] ?? '?'}`),
    onRound: (step, d, t, p) => bar.update(d, t, `${step.runLabel} ${p}`),
    onStepEnd: (step, end: StepEnd) =>
      say(
        end.state === 'complete'
          ? [`${at(step)}: ${step.runLabel} complete (run #${end.runId}, measured in ${end.seconds.toFixed(1)} s)`, ...end.warnings.map((w) => `warning: ${step.runLabel}: ${w}`)].join('\n')
          : `${at(step)}: ${step.runLabel} FAILED\n${end.reason.replace(/^/gm, '  ')}`,
      ),
    onReturnStart: (box) => say(`returning ${box.name} to ${box.home.release}`),
    onReturned: (r: Returned) => say(returnedLine(r)),
  };
}

function returnedLine(r: Returned): string {
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

/** The end of a session: the table of its complete boots and the compare command, on stdout. */
export function reportSession(io: CliIO, store: Store, result: SessionResult, db: string | undefined): void {
  const runs = result.session.steps.filter((s) => s.status === 'complete' && s.runId !== null).map((s) => store.getRun(s.runId!));
  if (runs.length) io.stdout(stepsTable(runs));
  if (result.state === 'complete') {
    const line = sessionCompareLine(result.session, db);
    if (line) io.stdout(line);
  }
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

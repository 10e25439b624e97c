/** Where `hintlab session`'s text goes as each step happens, and at the end (the text is src/report/session.ts's). */
import type { SessionDeps, SessionResult } from '../session/runner.ts';
import type { Store } from '../store/store.ts';
import { stepsTable } from '../report/vm.ts';
import { bootedLine, boxLine, returnedLine, returnStartLine, sessionCompareLine, stepEndText, stepStartLine } from '../report/session.ts';
import type { CliIO } from './io.ts';
import type { Progress } from './progress.ts';

/** The progress lines of a session, on stderr as they happen. */
export function sessionEvents(io: CliIO, bar: Progress, steps: () => number): Pick<SessionDeps, 'onBox' | 'onStepStart' | 'onBooted' | 'onRound' | 'onStepEnd' | 'onReturnStart' | 'onReturned'> {
  const say = (text: string): void => {
    bar.clear();
    io.stderr(`${text}\n`);
  };
  return {
    onBox: (box, resumed) => say(boxLine(box, resumed)),
    onStepStart: (step, kernel) => say(stepStartLine(step, steps(), kernel)),
    onBooted: (step, report) => say(bootedLine(step, steps(), report)),
    onRound: (step, d, t, p) => bar.update(d, t, `${step.runLabel} ${p}`),
    onStepEnd: (step, end) => say(stepEndText(step, steps(), end)),
    onReturnStart: (box) => say(returnStartLine(box)),
    onReturned: (r) => say(returnedLine(r)),
  };
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

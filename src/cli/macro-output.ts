/** What `hintlab macro` prints of a plan and a finished run, on this machine or on a --target box. */
import type { SysReader } from '../environment/reader.ts';
import { StressNgMissingError, type StressNgExecutor } from '../macro/executor.ts';
import { PlanError } from '../macro/plan.ts';
import { formatDuration } from '../macro/progress.ts';
import { MacroRequestError, prepareMacro, type MacroPlan, type MacroRequest, type MacroResult } from '../macro/runner.ts';
import { StressNgOutputError, StressorSelectionError } from '../macro/stressors.ts';
import { macroTable, unavailableText } from '../macro/table.ts';
import { macroWarnings } from '../macro/warnings.ts';
import { runHeadline } from '../report/run-table.ts';
import type { Store } from '../store/store.ts';
import { type CliIO } from './io.ts';
import { UserError } from '../errors.ts';

/** Errors of the request itself: exit status 2, printed without a stack. */
const REQUEST_ERRORS = [MacroRequestError, PlanError, StressorSelectionError, StressNgOutputError];

/** The plan for `req` on `executor`'s machine; request errors exit 2, a missing stress-ng names the package. */
export async function checkedMacroPlan(req: MacroRequest, executor: StressNgExecutor, reader?: SysReader): Promise<MacroPlan> {
  try {
    return await prepareMacro(req, executor, reader);
  } catch (err) {
    if (REQUEST_ERRORS.some((E) => err instanceof E)) throw new UserError((err as Error).message, 2);
    if (err instanceof StressNgMissingError) throw new UserError(err.message);
    throw err;
  }
}

/** What will run, before it runs (`where`: the box, for --target). */
export function planText(plan: MacroPlan, where = ''): string {
  const { req } = plan;
  return (
    unavailableText(plan.unavailable) +
    `${where}stress-ng ${plan.stressNgVersion}: ${plan.stressors.length} stressor${plan.stressors.length === 1 ? '' : 's'} x instances ${plan.instances.join(',')} x ${req.repeats} repeats ` +
    `of ${req.seconds} s, ${req.cooldownSeconds} s cool-down: about ${formatDuration(plan.plannedSeconds)}\n`
  );
}

/**
 * A finished run's table and warnings printed; a run that did not complete
 * returned as the failure text. `box`: the --target box's name, heading the
 * table and prefixing warnings and failures.
 */
export function macroOutcome(result: MacroResult, plan: MacroPlan, store: Store, io: CliIO, box?: string): string | null {
  const prefix = box ? `${box}: ` : '';
  if (result.state !== 'complete') {
    return (
      `${prefix}${result.reason}\nrun #${result.run.id} is marked failed in ${store.path}; its ${result.run.rounds.length} rounds ` +
      'are kept for inspection but never used as valid data'
    );
  }
  io.stdout(`${box ? `${box}\n` : ''}${runHeadline(result.run)}\n${macroTable(result.run)}${unavailableText(plan.unavailable)}`);
  for (const w of [...result.warnings, ...macroWarnings(result.run)]) io.stderr(`warning: ${prefix}${w.message}\n`);
  if (result.unclassifiedMetrics.length > 0) {
    io.stderr(`warning: ${prefix}stress-ng metrics not stored (their name gives no unit or direction): ${result.unclassifiedMetrics.join(', ')}\n`);
  }
  return null;
}

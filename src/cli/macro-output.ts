/** `hintlab macro`'s plan checked, and where a finished run's text goes, on this machine or on a --target box (the text is src/report/macro.ts's). */
import type { SysReader } from '../environment/reader.ts';
import { StressNgMissingError, type StressNgExecutor } from '../macro/executor.ts';
import { PlanError } from '../macro/plan.ts';
import { MacroRequestError, prepareMacro, type MacroPlan, type MacroRequest, type MacroResult } from '../macro/runner.ts';
import { StressNgOutputError, StressorSelectionError } from '../macro/stressors.ts';
import { macroWarnings } from '../macro/warnings.ts';
import { macroFailureText, macroRunText, macroWarningLines } from '../report/macro.ts';
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

/**
 * A finished run's table and warnings printed; a run that did not complete
 * returned as the failure text. `box`: the --target box's name, heading the
 * table and prefixing warnings and failures.
 */
export function macroOutcome(result: MacroResult, plan: MacroPlan, store: Store, io: CliIO, box?: string): string | null {
  if (result.state !== 'complete') return macroFailureText(result.reason, result.run, store.path, box);
  io.stdout(macroRunText(result.run, plan, box));
  for (const line of macroWarningLines(result.warnings, macroWarnings(result.run), result.unclassifiedMetrics, box)) io.stderr(line);
  return null;
}

/**
 * `bisect --stressor NAME`: the one stressor a bisect follows, checked
 * against the installed stress-ng before anything builds (the name it does
 * not know is refused with the closest ones it does, as `trial --stressor`
 * refuses it), and laid out as the plan every step's boots run.
 */
import { UserError } from '../errors.ts';
import { StressNgMissingError, type StressNgExecutor } from '../macro/executor.ts';
import { PlanError } from '../macro/plan.ts';
import { StressNgOutputError, StressorSelectionError } from '../macro/stressors.ts';
import { planVmMacro } from '../vm/macro.ts';
import type { LabStress } from './lab.ts';

const REQUEST_ERRORS = [PlanError, StressorSelectionError, StressNgOutputError];

/** The plan of one stressor, one instance (the -icount guest has one CPU), `repeats` invocations of `seconds` guest seconds per boot. */
export async function planBisectStress(stressor: string, seconds: number, repeats: number, stressNg: StressNgExecutor): Promise<LabStress> {
  let plan;
  try {
    plan = await planVmMacro(
      { kernels: [], steps: [], stressors: [stressor], sets: [], instances: '1', seconds, repeats, accel: 'tcg', icount: true, timeoutSeconds: 0, labelPrefix: 'bisect-', command: '', hintlabVersion: '' },
      stressNg,
    );
  } catch (err) {
    if (REQUEST_ERRORS.some((E) => err instanceof E)) throw new UserError(`--stressor ${stressor}: ${(err as Error).message}`, 2);
    if (err instanceof StressNgMissingError) throw new UserError(err.message);
    throw err;
  }
  const subject = plan.items[0]?.subject;
  if (!subject || plan.stressors.length !== 1) throw new UserError(`--stressor ${stressor}: the installed stress-ng ${plan.stressNgVersion} does not have it`, 2);
  return { plan, subject, seconds, repeats };
}

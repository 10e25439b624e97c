/** `hintlab vm --macro`: the macro plan's options, checked, then one guest run of stress-ng per boot. */
import { buildProbe } from '../launch/probe-build.ts';
import { processExecutor, StressNgMissingError } from '../macro/executor.ts';
import { PlanError } from '../macro/plan.ts';
import { StressNgOutputError, StressorSelectionError } from '../macro/stressors.ts';
import { guestPlanText } from '../report/macro.ts';
import { dbPathFrom } from '../store/path.ts';
import { Store } from '../store/store.ts';
import { VERSION } from '../version.ts';
import type { AccelRequest } from '../vm/accel.ts';
import type { VmKernel } from '../vm/kernels.ts';
import { planVmMacro, runVmMacro, type VmMacroPlan, type VmMacroRequest } from '../vm/macro.ts';
import { qemuLauncher, requireQemu } from '../launch/qemu.ts';
import { interruptible } from './interrupt.ts';
import { type CliIO, commandLine, invocationOf } from './io.ts';
import { UserError } from '../errors.ts';
import { progressBar } from './progress.ts';
import { reportSteps, stepCallbacks } from './vm-report.ts';

/** The options only --macro reads. */
export interface VmMacroOptions {
  macro?: boolean;
  stressor: string[];
  set: string[];
  instances: string;
  seconds: number;
  repeats: number;
}

/** The `hintlab vm` options a macro run shares with a probe run. */
interface SharedOptions {
  profile: string[];
  icount?: boolean;
  accel: AccelRequest;
  timeout?: number;
  labelPrefix: string;
  db?: string;
}

const REQUEST_ERRORS = [PlanError, StressorSelectionError, StressNgOutputError];

/** Boot time allowance on top of the plan: a TCG boot with the ~10 MB initramfs takes well under a minute. */
const BOOT_ALLOWANCE_S = 120;

async function checkedPlan(req: VmMacroRequest): Promise<VmMacroPlan> {
  try {
    return await planVmMacro(req, processExecutor());
  } catch (err) {
    if (REQUEST_ERRORS.some((E) => err instanceof E)) throw new UserError((err as Error).message, 2);
    if (err instanceof StressNgMissingError) throw new UserError(err.message);
    throw err;
  }
}

function conflicts(opts: SharedOptions): void {
  if (opts.profile.length) throw new UserError('--macro runs stress-ng instead of probe profiles; drop --profile (or drop --macro)', 2);
  if (opts.icount) {
    throw new UserError("--macro cannot use --icount: stress-ng's --timeout would count guest instructions, not seconds; use --accel kvm or tcg", 2);
  }
}

export async function vmMacroAction(opts: VmMacroOptions & SharedOptions, io: CliIO, kernels: VmKernel[], steps: string[]): Promise<void> {
  conflicts(opts);
  const stressors = opts.stressor.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  if (stressors.length === 0 && opts.set.length === 0) throw new UserError('--macro needs --stressor NAME or --set sched', 2);
  const partial = { kernels, steps, stressors, sets: opts.set, instances: opts.instances, seconds: opts.seconds, repeats: opts.repeats, accel: opts.accel };
  const req: VmMacroRequest = { ...partial, timeoutSeconds: 0, labelPrefix: opts.labelPrefix, command: commandLine(io), invocation: invocationOf(io), hintlabVersion: VERSION };
  const plan = await checkedPlan(req);
  const plannedSeconds = plan.items.length * opts.seconds;
  req.timeoutSeconds = opts.timeout ?? plannedSeconds * 2 + BOOT_ALLOWANCE_S;
  io.stderr(guestPlanText(plan, opts.seconds, opts.repeats, steps.length));
  requireQemu();
  const probe = buildProbe({ static: true, env: io.env });
  const store = Store.open(dbPathFrom(opts.db, io.env));
  const bar = progressBar(io);
  try {
    await interruptible(async (abort) => {
      const result = await runVmMacro(req, plan, {
        store,
        launcher: qemuLauncher(),
        probe,
        abort,
        ...stepCallbacks(io, bar, steps.length),
        onInvocation: (s, d, t) => bar.update(d, t, `${s.runLabel} ${plan.items[d - 1]?.subject ?? ''}`),
      });
      bar.clear();
      reportSteps(io, store, result, steps.length, opts.db);
    });
  } finally {
    bar.clear();
    store.close();
  }
}

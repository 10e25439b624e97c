/**
 * `hintlab macro --target ssh://[user@]host[:port] [--target ...]`: the same
 * stress-ng plan on each box, the boxes in parallel, every round stored here
 * as soon as its YAML comes back. stress-ng must be installed on the box;
 * the ssh target stops it when its session ends (hintlab killed, connection
 * lost). Each run carries the box's environment (`where: 'remote'`), and
 * with several boxes its label ends in `@host`.
 */
import { sshExecutor } from '../macro/executor.ts';
import { runMacro, type MacroRequest } from '../macro/runner.ts';
import { Store } from '../store/store.ts';
import { boxProgress, onBoxes, type Box } from '../targets/boxes.ts';
import { parsePlace } from '../targets/place.ts';
import { type CliIO } from './io.ts';
import { UserError } from '../errors.ts';
import { interruptible } from './interrupt.ts';
import { checkedMacroPlan, macroOutcome } from './macro-output.ts';
import { planText } from '../report/macro.ts';
import { progressBar } from './progress.ts';

/** Each box's plan, checked against its own stress-ng and CPUs before anything runs. */
async function plansFor(boxes: Box[], req: MacroRequest) {
  return Promise.all(
    boxes.map(async (box) => {
      const executor = await sshExecutor(box.target).catch((err: unknown) => {
        throw new UserError((err as Error).message);
      });
      const reader = await box.target.reader();
      const plan = await checkedMacroPlan({ ...req, label: box.label(req.label) }, executor, reader);
      return { box, executor, reader, plan };
    }),
  );
}

/** `macro --target`: the plan on every box in parallel, each box's run printed, every box that failed named. */
export async function macroOnBoxes(urls: string[], req: MacroRequest, dbPath: string, io: CliIO): Promise<void> {
  const place = parsePlace('macro', { target: urls }, io.env);
  await onBoxes(place.kind === 'ssh' ? place.boxes : [], { env: io.env }, async (boxes) => {
    const planned = await plansFor(boxes, req);
    for (const b of planned) io.stderr(planText(b.plan, `${b.box.target.name}: `));
    const store = Store.open(dbPath);
    const bar = progressBar(io);
    const progress = boxProgress(planned.map((b) => b.plan.items.length), (d, t, what) => bar.update(d, t, what));
    try {
      await interruptible(async (abort) => {
        const results = await Promise.all(
          planned.map((b) => {
            const onBox = progress(b.box.index, b.box.tag);
            return runMacro(b.plan, { store, executor: b.executor, reader: b.reader, abort, onProgress: (p) => onBox(p.done, b.plan.items.length, p.item.subject) });
          }),
        );
        bar.clear();
        const failures = results.flatMap((r, i) => macroOutcome(r, planned[i]!.plan, store, io, planned[i]!.box.target.name) ?? []);
        if (failures.length) throw new UserError(failures.join('\n'));
      });
    } finally {
      bar.clear();
      store.close();
    }
  });
}

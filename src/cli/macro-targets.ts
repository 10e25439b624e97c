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
import type { SshTarget } from '../targets/ssh.ts';
import { type CliIO } from './io.ts';
import { UserError } from '../errors.ts';
import { interruptible } from './interrupt.ts';
import { checkedMacroPlan, macroOutcome } from './macro-output.ts';
import { planText } from '../report/macro.ts';
import { progressBar } from './progress.ts';
import { boxLabel, connectAll, hostTags, parseTargetUrls } from './targets.ts';

/** Each box's plan, checked against its own stress-ng and CPUs before anything runs. */
async function plansFor(targets: SshTarget[], tags: string[], req: MacroRequest) {
  return Promise.all(
    targets.map(async (target, i) => {
      const executor = await sshExecutor(target).catch((err: unknown) => {
        throw new UserError((err as Error).message);
      });
      const reader = await target.reader();
      const plan = await checkedMacroPlan({ ...req, label: boxLabel(req.label, tags[i]!, targets.length > 1) }, executor, reader);
      return { target, executor, reader, plan };
    }),
  );
}

export async function macroOnBoxes(urls: string[], req: MacroRequest, dbPath: string, io: CliIO): Promise<void> {
  const addresses = parseTargetUrls(urls);
  const targets = await connectAll(addresses, undefined, io);
  const tags = hostTags(addresses);
  try {
    const boxes = await plansFor(targets, tags, req);
    for (const b of boxes) io.stderr(planText(b.plan, `${b.target.name}: `));
    const store = Store.open(dbPath);
    const bar = progressBar(io);
    const done = boxes.map(() => 0);
    const total = boxes.map((b) => b.plan.items.length);
    try {
      await interruptible(async (abort) => {
        const results = await Promise.all(
          boxes.map((b, i) =>
            runMacro(b.plan, {
              store,
              executor: b.executor,
              reader: b.reader,
              abort,
              onProgress: (p) => {
                done[i] = p.done;
                bar.update(done.reduce((x, y) => x + y, 0), total.reduce((x, y) => x + y, 0), `${tags[i]} ${p.item.subject}`);
              },
            }),
          ),
        );
        bar.clear();
        const failures = results.flatMap((r, i) => macroOutcome(r, boxes[i]!.plan, store, io, boxes[i]!.target.name) ?? []);
        if (failures.length) throw new UserError(failures.join('\n'));
      });
    } finally {
      bar.clear();
      store.close();
    }
  } finally {
    await Promise.all(targets.map((t) => t.close()));
  }
}

/** A probe session as the boot scheduler (./runner.ts) sees it through one guest boot. */
import type { ProbeSession } from '../bench/session.ts';
import type { LineSession, SessionOutcome } from '../targets/driver.ts';
import type { TargetExit } from '../targets/target.ts';

/**
 * A probe session seen through a guest's boot: a Ctrl-C or a timeout is
 * qemu killed, qemu exits 0 whenever the guest reboots (whether the probe
 * finished is in its own lines), and a corrupt probe line fails the boot;
 * every failure carries the console's last lines and the qemu command.
 */
export class BootSession implements LineSession {
  /** Why the boot's cost counters could not be stored (`vm --cost`); the boot then fails. */
  costFailure: string | null = null;
  constructor(readonly probe: ProbeSession) {}
  feed(line: string): void {
    this.probe.feed(line);
  }
  get stopped(): AbortSignal {
    return this.probe.stopped;
  }
  get storeFailure() {
    return this.probe.storeFailure;
  }
  outcome(exit: TargetExit): SessionOutcome {
    const end = exit.end;
    if (end.kind === 'aborted') return { state: 'failed', reason: exit.describe('interrupted (Ctrl-C): qemu was killed') };
    if (end.kind === 'timeout') return { state: 'failed', reason: exit.describe(`no complete result within ${end.seconds} s (--timeout); qemu was killed`) };
    const out = this.probe.outcome({ end, stderrTail: [], describe: (w) => w });
    if (out.state === 'failed') return { state: 'failed', reason: exit.describe(out.reason.replace(/^probe exited with status/, 'qemu exited with status')) };
    const corrupt = this.probe.corruptLines;
    if (corrupt.length) return { state: 'failed', reason: exit.describe(`the guest printed ${corrupt.length} corrupt probe line(s), first: ${corrupt[0]}`) };
    if (this.costFailure) return { state: 'failed', reason: exit.describe(`cost counters: ${this.costFailure}`) };
    return out;
  }
}

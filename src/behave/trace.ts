/**
 * A behaviour trace: what the probe's `--behave` mode printed (framed
 * `scenario`, `step`, `state` and `scenario-end` lines, checked by their
 * CRC-32), read into scenarios of steps, plus what the kernel itself said
 * that is not data: warnings and splats on the console.
 *
 * Invariant: a trace is only ever built from lines whose checksum matched;
 * a corrupt line is kept aside (`corrupt`) and makes the boot fail, never a
 * divergence.
 */
import { ConsoleLines, describeProbeError, type ProbeEvent } from '../launch/probe-protocol.ts';

/** The scheduler's view of one task after a step: `who` (self, peer) -> field -> value. */
export type TaskStates = Record<string, Record<string, string>>;

export interface TraceStep {
  /** 1-based within its scenario; 0 is the state before the first step. */
  n: number;
  /** Line of the scenario source (the program's output line for a program). */
  line: number;
  call: string;
  ret: string;
  errno: string;
  /** What the call handed back ("size=56,policy=0,..."), `-` for nothing. */
  out: string;
  state: TaskStates;
}

export interface ScenarioTrace {
  name: string;
  /** Step 0 (the state before the first call) followed by every step. */
  steps: TraceStep[];
  /** The scenario process's end: 0, a program's exit status, or null when its end line never came. */
  status: number | null;
}

export interface Trace {
  /** uname -r of the guest, from the probe's hello line. */
  kernelRelease: string | null;
  scenarios: ScenarioTrace[];
  /** Kernel warnings and splats on the console, each with the lines after it. */
  splats: string[][];
}

/**
 * What a kernel prints when something is wrong in it: WARN(), BUG(),
 * oopses, KASAN/UBSAN/KFENCE reports, lockdep, hung tasks, RCU stalls.
 */
export const SPLAT = /(WARNING:|BUG:|Oops|Kernel panic|KASAN|UBSAN|KFENCE|possible circular locking|possible recursive locking|inconsistent lock state|lockdep|INFO: task .* blocked|rcu_sched self-detected stall|general protection fault|refcount_t:|list_add corruption|list_del corruption)/;
/** Console lines kept after a splat's first line (the call trace's start). */
const SPLAT_CONTEXT = 12;

function intField(f: Record<string, string>, key: string): number {
  const n = Number(f[key]);
  return Number.isInteger(n) ? n : -1;
}

/** Reads a boot's console into a Trace; `problem()` says why the result is not a whole trace. */
export class TraceReader {
  hello: Extract<ProbeEvent, { type: 'hello' }> | null = null;
  readonly scenarios: ScenarioTrace[] = [];
  readonly splats: string[][] = [];
  readonly corrupt: string[] = [];
  private failure: string | null = null;
  private done = false;
  private splatOpen: string[] | null = null;
  private readonly lines = new ConsoleLines();

  feed(raw: string): void {
    this.watchSplat(raw);
    for (const p of this.lines.push(raw)) {
      if (p.kind === 'event') this.handle(p.event);
      else if (p.kind === 'corrupt') this.corrupt.push(`${p.reason}: ${p.line.slice(0, 160)}`);
    }
  }

  private watchSplat(raw: string): void {
    const line = raw.replace(/\r+$/, '');
    if (line.includes('@hl1 ')) return;
    if (this.splatOpen && this.splatOpen.length < SPLAT_CONTEXT) {
      this.splatOpen.push(line);
      return;
    }
    this.splatOpen = null;
    if (SPLAT.test(line)) {
      this.splatOpen = [line];
      this.splats.push(this.splatOpen);
    }
  }

  private handle(e: ProbeEvent): void {
    if (e.type === 'hello') this.hello = e;
    else if (e.type === 'error') this.failure ??= `the probe failed in the guest: ${describeProbeError(e)}`;
    else if (e.type === 'done') this.done = true;
    else if (e.type === 'trace') this.traceLine(e.line, e.fields);
  }

  private traceLine(kind: 'scenario' | 'step' | 'state' | 'scenario-end', f: Record<string, string>): void {
    const current = this.scenarios.at(-1);
    if (kind === 'scenario') {
      this.scenarios.push({ name: f.name ?? '-', steps: [{ n: 0, line: 0, call: '(start)', ret: '-', errno: '0', out: '-', state: {} }], status: null });
      return;
    }
    if (!current || (f.scenario ?? f.name) !== current.name) {
      this.failure ??= `a ${kind} line of scenario '${f.scenario ?? f.name}' outside it`;
      return;
    }
    if (kind === 'scenario-end') current.status = intField(f, 'status');
    else if (kind === 'step') {
      current.steps.push({ n: intField(f, 'n'), line: intField(f, 'line'), call: f.call ?? '', ret: f.ret ?? '', errno: f.errno ?? '', out: f.out ?? '', state: {} });
    } else {
      const step = current.steps.at(-1)!;
      const { scenario: _s, n: _n, who = '?', ...fields } = f;
      step.state[who] = fields;
    }
  }

  /** Why what was read is not a complete trace, or null when it is. */
  problem(expected: readonly string[]): string | null {
    for (const p of this.lines.flush()) this.corrupt.push(`${p.reason}: ${p.line.slice(0, 160)}`);
    if (this.failure) return this.failure;
    if (!this.hello) return 'the probe never started in the guest (no hello line)';
    if (this.corrupt.length) return `the guest printed ${this.corrupt.length} corrupt line(s), first: ${this.corrupt[0]}`;
    const names = this.scenarios.map((s) => s.name);
    const missing = expected.filter((n) => !names.includes(n));
    const unfinished = this.scenarios.filter((s) => s.status === null).map((s) => s.name);
    if (unfinished.length) return `scenario ${unfinished.join(', ')} did not finish (no end line)`;
    if (missing.length) return `scenario ${missing.join(', ')} never started`;
    if (!this.done) return 'the runner did not finish (no done line)';
    return null;
  }

  /** The trace read so far. */
  result(): Trace {
    return { kernelRelease: this.hello?.kernel ?? null, scenarios: this.scenarios, splats: this.splats };
  }
}

/**
 * Scenario files (docs/behave-scenarios.md, "Scenario files"): a small line format
 * that names syscalls and their arguments, checked here so that every
 * mistake is reported as `FILE:LINE: what is wrong; the fix` before
 * anything boots, and compiled into the plan the probe's `--behave` mode
 * reads (probes/behave.c):
 *
 *   scenario NAME            starts a scenario (letters, digits, '.', '_', '-')
 *   peer                     a peer task for pid=peer (right after `scenario`)
 *   needs cpus=2             the scenario needs two CPUs
 *   CALL KEY=VALUE ...       one step
 *   repeat N CALL ...        the same step N times
 *   as nobody ... end        the steps between run in a child with uid/gid 65534
 *   # ...                    a comment
 */
import { firstUnprintable, printable, UserError } from '../errors.ts';

export interface ScenarioStep {
  /** 1-based line in the source. */
  line: number;
  call: string;
  args: string[];
  /** The line of the `as nobody` block the step is in (each block is one unprivileged child), 0 outside. */
  nobody: number;
}

export interface Scenario {
  name: string;
  /** Where it came from: `built-in` or the file's path. */
  source: string;
  line: number;
  peer: boolean;
  cpus: 1 | 2;
  steps: ScenarioStep[];
}

type Check = (value: string) => string | null;

const INT = /^-?(0x[0-9a-fA-F]+|\d+)$/;
const POLICIES = ['OTHER', 'FIFO', 'RR', 'BATCH', 'IDLE', 'DEADLINE', 'RESET_ON_FORK_POLICY'];
const SCHED_FLAGS = ['RESET_ON_FORK', 'RECLAIM', 'DL_OVERRUN', 'KEEP_POLICY', 'KEEP_PARAMS', 'UTIL_CLAMP_MIN', 'UTIL_CLAMP_MAX', 'UTIL_CLAMP'];
const FDS = ['rready', 'rempty', 'wready', 'badfd'];

const int: Check = (v) => (INT.test(v) ? null : 'expected a whole number (decimal or 0x hex)');
const words = (names: string[], what: string): Check => (v) =>
  v.split('+').every((w) => INT.test(w) || names.includes(w)) ? null : `expected ${what} (${names.join(', ')}), a number, or several joined by '+'`;
const oneOf = (names: string[], orInt = false): Check => (v) =>
  names.includes(v) || (orInt && INT.test(v)) ? null : `expected ${names.join(', ')}${orInt ? ' or a number' : ''}`;
const ptr: Check = oneOf(['ptr', 'null']);
const pid: Check = oneOf(['self', 'peer', 'nonexistent'], true);
const fdSet: Check = (v) => (v === 'null' || v === 'none' || v.split('+').every((f) => FDS.includes(f)) ? null : `expected null, none, or descriptors joined by '+' (${FDS.join(', ')})`);
const addr: Check = (v) => (['map', 'null', 'unaligned', 'unmapped', 'kernel'].includes(v) || /^map\+\d+$/.test(v) ? null : 'expected map, map+PAGES, unaligned, unmapped, kernel or null');
const mask: Check = (v) => (['all', 'none', 'null'].includes(v) || /^cpu\d+$/.test(v) || INT.test(v) ? null : 'expected all, none, null, cpuN or a bit mask (0x3)');
const policy = words(POLICIES, 'policies');

/** Every call, with the keys it takes and how each is checked. */
const CALLS: Record<string, Record<string, Check>> = {
  getppid: {},
  sched_getattr: { pid, attr: ptr, size: int, flags: int },
  sched_setattr: {
    pid, attr: ptr, size: int, policy, flags: words(SCHED_FLAGS, 'sched_flags'), nice: int, prio: int,
    runtime: (v) => (v === 'default' || INT.test(v) ? null : "expected nanoseconds or 'default' (the base slice in force)"),
    deadline: int, period: int, umin: int, umax: int, tail: int, callflags: int,
  },
  sched_setscheduler: { pid, policy, prio: int, param: ptr },
  sched_setparam: { pid, prio: int, param: ptr },
  sched_getscheduler: { pid },
  sched_getparam: { pid, param: ptr },
  sched_yield: {},
  sched_setaffinity: { pid, mask, size: int },
  sched_getaffinity: { pid, mask: oneOf(['null', 'ptr']), size: int },
  setpriority: { pid, which: int, nice: int },
  getpriority: { pid, which: int },
  select: {
    nfds: (v) => (v === 'max' || INT.test(v) ? null : "expected a number or 'max' (highest descriptor named + 1)"),
    read: fdSet, write: fdSet, except: fdSet,
    timeout: (v) => (v === 'null' || v === 'bad' || /^\d+$/.test(v) ? null : 'expected microseconds, null (wait forever) or bad (tv_usec = -1)'),
  },
  mincore: { addr, pages: int, bytes: int, vec: ptr },
  touch: { page: int },
  dontneed: { page: int },
  base_slice: { ns: int },
  spin: { ms: int },
  pi_lock: {},
  peer_pi_lock: {},
  pi_unlock: {},
};

/** Keys a call cannot do without. */
const REQUIRED: Record<string, string[]> = { base_slice: ['ns'], touch: ['page'], dontneed: ['page'] };

export const CALL_NAMES: readonly string[] = Object.keys(CALLS);

const NAME = /^[A-Za-z0-9][\w.-]*$/;
const MAX_REPEAT = 100;

class Parser {
  readonly scenarios: Scenario[] = [];
  private current: Scenario | null = null;
  private nobodyFrom: number | null = null;
  /** Line of the pi_lock the caller holds, and of the peer_pi_lock blocked on it. */
  private piHeld: number | null = null;
  private piPeer: number | null = null;
  constructor(private readonly file: string) {}

  fail(line: number, message: string): never {
    throw new UserError(`${printable(this.file)}:${line}: ${message}`, 2);
  }

  line(text: string, n: number): void {
    // a NUL or an escape sequence is neither a name nor a call: say what it is, not "unknown call"
    const bad = firstUnprintable(text.replace(/[\t\r]/g, ' '));
    if (bad) this.fail(n, `a control character (${bad}); a scenario file is plain text: names and calls are letters, digits, '.', '_' and '-'`);
    const words = text.replace(/(^|\s)#.*$/, '').trim().split(/\s+/).filter(Boolean);
    const [head, ...rest] = words;
    if (!head) return;
    if (head === 'scenario') { this.start(rest, n); return; }
    const s = this.current ?? this.fail(n, `'${head}' before any 'scenario NAME' line; start the file with 'scenario NAME'`);
    if (head === 'peer') {
      if (s.steps.length) this.fail(n, "'peer' after the first step; put it right after 'scenario NAME'");
      s.peer = true;
    } else if (head === 'needs') {
      if (rest.join(' ') !== 'cpus=2') this.fail(n, `'needs ${rest.join(' ')}': the only need is 'needs cpus=2'`);
      s.cpus = 2;
    } else if (head === 'as') {
      if (rest.join(' ') !== 'nobody') this.fail(n, `'as ${rest.join(' ')}': the only other caller is 'as nobody'`);
      if (this.nobodyFrom !== null) this.fail(n, `'as nobody' inside the 'as nobody' of line ${this.nobodyFrom}; close it with 'end' first`);
      this.nobodyFrom = n;
    } else if (head === 'end') {
      if (this.nobodyFrom === null) this.fail(n, "'end' without 'as nobody'; a scenario ends at the next 'scenario' line or the end of the file");
      this.nobodyFrom = null;
    } else if (head === 'repeat') {
      const times = Number(rest[0]);
      if (!/^\d+$/.test(rest[0] ?? '') || times < 1 || times > MAX_REPEAT) this.fail(n, `'repeat ${rest[0] ?? ''}': expected 'repeat N CALL ...' with N from 1 to ${MAX_REPEAT}`);
      for (let i = 0; i < times; i++) this.step(s, rest.slice(1), n);
    } else {
      this.step(s, words, n);
    }
  }

  private start(rest: string[], n: number): void {
    this.close(n);
    this.piHeld = null;
    this.piPeer = null;
    const name = rest[0];
    if (!name || rest.length > 1 || !NAME.test(name)) this.fail(n, `'scenario ${rest.join(' ')}': expected 'scenario NAME' with a name of letters, digits, '.', '_' or '-'`);
    const seen = this.scenarios.find((s) => s.name === name);
    if (seen) this.fail(n, `scenario '${name}' is defined twice (first at line ${seen.line}); give each a name of its own`);
    this.current = { name, source: this.file, line: n, peer: false, cpus: 1, steps: [] };
    this.scenarios.push(this.current);
  }

  private step(s: Scenario, words: string[], n: number): void {
    const [call, ...args] = words;
    if (!call) this.fail(n, "'repeat N' needs a call after it");
    const keys = CALLS[call] ?? this.fail(n, `unknown call '${call}' (calls: ${CALL_NAMES.join(', ')})`);
    const given = new Set<string>();
    for (const a of args) {
      const eq = a.indexOf('=');
      const key = eq > 0 ? a.slice(0, eq) : a;
      const value = eq > 0 ? a.slice(eq + 1) : '';
      const check = keys[key];
      if (eq <= 0 || value === '') this.fail(n, `'${a}': arguments are KEY=VALUE (e.g. pid=self)`);
      if (!check) this.fail(n, `${call} takes no '${key}'${Object.keys(keys).length ? ` (keys: ${Object.keys(keys).join(', ')})` : ' argument'}`);
      if (given.has(key)) this.fail(n, `${call}: '${key}' is given twice`);
      given.add(key);
      const problem = check(value);
      if (problem) this.fail(n, `${call} ${key}=${value}: ${problem}`);
      if (key === 'pid' && value === 'peer' && !s.peer) this.fail(n, `pid=peer needs a 'peer' line right after 'scenario ${s.name}'`);
    }
    for (const k of REQUIRED[call] ?? []) if (!given.has(k)) this.fail(n, `${call} needs ${k}=...`);
    if (call === 'select') this.checkSelect(args, n);
    if (call.includes('pi_')) this.checkPi(s, call, n);
    s.steps.push({ line: n, call, args, nobody: this.nobodyFrom ?? 0 });
  }

  /** select with no timeout and nothing ready would wait forever: the boot would only time out. */
  private checkSelect(args: string[], n: number): void {
    const v = (k: string) => args.find((a) => a.startsWith(`${k}=`))?.slice(k.length + 1);
    if (v('timeout') !== 'null') return;
    const ready = (v('read') ?? '').split('+').includes('rready') || (v('write') ?? '').split('+').includes('wready');
    if (!ready) this.fail(n, 'select timeout=null with no ready descriptor (read=rready or write=wready) waits forever; give timeout=MICROSECONDS');
  }

  /**
   * The PI futex: the caller takes it, the peer blocks on it (boosting the
   * caller), the caller releases it. Out of order, a step would block the
   * scenario or leave the peer waiting forever.
   */
  private checkPi(s: Scenario, call: string, n: number): void {
    if (this.nobodyFrom !== null) this.fail(n, `${call} inside 'as nobody': the PI futex steps run as the scenario's own task`);
    if (call === 'pi_lock') {
      if (this.piHeld !== null) this.fail(n, `pi_lock: the futex is already held since line ${this.piHeld}; pi_unlock first`);
      this.piHeld = n;
    } else if (call === 'peer_pi_lock') {
      if (!s.peer) this.fail(n, `peer_pi_lock needs a 'peer' line right after 'scenario ${s.name}'`);
      if (this.piHeld === null) this.fail(n, 'peer_pi_lock: the caller does not hold the futex; pi_lock first, so the peer blocks on it');
      if (this.piPeer !== null) this.fail(n, `peer_pi_lock: the peer is already blocked on the futex since line ${this.piPeer}`);
      this.piPeer = n;
    } else {
      if (this.piHeld === null) this.fail(n, 'pi_unlock: the futex is not held; pi_lock first');
      this.piHeld = null;
      this.piPeer = null;
    }
  }

  close(n: number): void {
    if (this.piHeld !== null) this.fail(n, `the PI futex taken at line ${this.piHeld} is never released; add pi_unlock`);
    if (this.nobodyFrom !== null) this.fail(n, `'as nobody' of line ${this.nobodyFrom} is not closed; add 'end' after its steps`);
    if (this.current && this.current.steps.length === 0) this.fail(this.current.line, `scenario '${this.current.name}' has no steps`);
  }
}

/** Parse scenario text; `file` names it in errors (`built-in` for hintlab's own). */
export function parseScenarios(text: string, file: string): Scenario[] {
  const p = new Parser(file);
  const lines = text.split('\n');
  lines.forEach((l, i) => p.line(l, i + 1));
  p.close(lines.length);
  if (p.scenarios.length === 0) throw new UserError(`${printable(file)}: no scenario in the file; start one with 'scenario NAME'`, 2);
  return p.scenarios;
}

/** A static program whose output lines are a trace (--program). */
export interface TraceProgram {
  name: string;
  /** Where the program is in the guest (or on the host for a native run). */
  path: string;
}

/** The plan the probe's --behave mode reads (probes/behave.c, top comment). */
export function compilePlan(scenarios: readonly Scenario[], programs: readonly TraceProgram[] = []): string {
  const out: string[] = [];
  for (const s of scenarios) {
    out.push(`scenario ${s.name}${s.peer ? ' peer' : ''}`);
    let block = 0;
    for (const st of s.steps) {
      if (st.nobody !== block) {
        if (block) out.push('endnobody');
        if (st.nobody) out.push(`nobody ${st.nobody}`);
        block = st.nobody;
      }
      out.push(['step', String(st.line), st.call, ...st.args].join(' '));
    }
    if (block) out.push('endnobody');
    out.push('end');
  }
  for (const p of programs) out.push(`program ${p.name} ${p.path}`);
  return `${out.join('\n')}\n`;
}

/**
 * Parser for the probe's framed output (docs/probe-protocol.md). Pure: it
 * turns text lines into typed events and never trusts a line whose CRC-32
 * does not match.
 */
import { crc32 } from 'node:zlib';

export type ProbeEvent =
  | { type: 'hello'; kernel: string; version: string; machine: string; pid1: boolean; fields: Record<string, string> }
  | { type: 'profile'; name: string; call: string; cpus: number; params: string; description: string }
  | { type: 'prepared'; profile: string; params: string }
  | {
      type: 'round';
      profile: string;
      idx: number;
      warmup: boolean;
      ops: number;
      /** CLOCK_MONOTONIC_RAW ns for the whole round (guest instructions under -icount). */
      elapsed: number;
      cpu: number;
      /** CLOCK_MONOTONIC_RAW ns when the round's clock started; null from probes that did not say. */
      start: number | null;
    }
  | {
      type: 'error';
      profile: string;
      round: number;
      warmup: boolean;
      stage: string;
      call: number;
      syscall: string;
      errno: number;
      message: string;
    }
  | { type: 'interrupted'; signal: number }
  | { type: 'done'; rounds: number; profiles: number }
  /** `--go-fifo`: the probe waits for the go byte of block `block` (0-based). */
  | { type: 'wait'; block: number }
  /** `--work-gauge`: `calls` calls of the profile's loop with `adds` more additions each took `elapsed` more than without (the round's clock). */
  | { type: 'gauge'; profile: string; adds: number; calls: number; elapsed: number }
  | { type: 'poweroff'; status: number }
  | CoverageEvent
  | TraceEvent;

/**
 * Lines of `--behave` (behaviour scenarios, src/behave/): `scenario`,
 * `step`, `state` and `scenario-end`, their fields as printed (the reader
 * in src/behave/trace.ts gives them their meaning).
 */
export interface TraceEvent {
  type: 'trace';
  line: 'scenario' | 'step' | 'state' | 'scenario-end';
  fields: Record<string, string>;
}

/** Lines of `--exec` and `--dump-gcov` (coverage collection, src/hints/collect/). */
export type CoverageEvent =
  | { type: 'exec'; path: string; status: number }
  /** One .gcda file follows in chunks: `size` bytes whose CRC-32 is `crc` (8 hex digits). */
  | { type: 'file'; id: number; path: string; size: number; crc: string }
  /** `data` is base64 of the file's bytes from offset `off`. */
  | { type: 'chunk'; id: number; off: number; data: string }
  | { type: 'files'; count: number; bytes: number };

/** What one line of probe output was. */
export type ParsedLine =
  | { kind: 'event'; event: ProbeEvent }
  | { kind: 'noise' } // not a probe line (kernel messages on a console)
  | { kind: 'corrupt'; line: string; reason: string };

const PREFIX = '@hl1 ';

function unescape(v: string): string {
  return v.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

function num(fields: Record<string, string>, key: string): number {
  const v = fields[key];
  const n = v === undefined ? NaN : Number(v);
  if (!Number.isFinite(n)) throw new Error(`field '${key}' is missing or not a number`);
  return n;
}

function str(fields: Record<string, string>, key: string): string {
  const v = fields[key];
  if (v === undefined) throw new Error(`field '${key}' is missing`);
  return v;
}

function toEvent(type: string, f: Record<string, string>): ProbeEvent {
  switch (type) {
    case 'hello':
      return { type, kernel: str(f, 'kernel'), version: str(f, 'version'), machine: str(f, 'machine'), pid1: f.pid1 === '1', fields: f };
    case 'profile':
      return { type, name: str(f, 'name'), call: str(f, 'call'), cpus: num(f, 'cpus'), params: str(f, 'params'), description: str(f, 'description') };
    case 'prepared':
      return { type, profile: str(f, 'profile'), params: str(f, 'params') };
    case 'round':
      return { type, profile: str(f, 'profile'), idx: num(f, 'idx'), warmup: f.warmup === '1', ops: num(f, 'ops'), elapsed: num(f, 'elapsed'), cpu: num(f, 'cpu'), start: f.start === undefined ? null : num(f, 'start') };
    case 'error':
      return {
        type,
        profile: f.profile ?? '-',
        round: Number(f.round ?? -1),
        warmup: f.warmup === '1',
        stage: f.stage ?? 'unknown',
        call: Number(f.call ?? -1),
        syscall: f.syscall ?? '-',
        errno: Number(f.errno ?? 0),
        message: f.message ?? '',
      };
    case 'interrupted':
      return { type, signal: num(f, 'signal') };
    case 'done':
      return { type, rounds: num(f, 'rounds'), profiles: num(f, 'profiles') };
    case 'poweroff':
      return { type, status: num(f, 'status') };
    case 'wait':
      return { type, block: num(f, 'block') };
    case 'gauge':
      return { type, profile: str(f, 'profile'), adds: num(f, 'adds'), calls: num(f, 'calls'), elapsed: num(f, 'elapsed') };
    case 'exec':
    case 'file':
    case 'chunk':
    case 'files':
      return coverageEvent(type, f);
    case 'scenario':
    case 'step':
    case 'state':
    case 'scenario-end':
      return { type: 'trace', line: type, fields: f };
    default:
      throw new Error(`unknown line type '${type}'`);
  }
}

function coverageEvent(type: CoverageEvent['type'], f: Record<string, string>): CoverageEvent {
  switch (type) {
    case 'exec':
      return { type, path: str(f, 'path'), status: num(f, 'status') };
    case 'file':
      return { type, id: num(f, 'id'), path: str(f, 'path'), size: num(f, 'size'), crc: str(f, 'crc') };
    case 'chunk':
      return { type, id: num(f, 'id'), off: num(f, 'off'), data: str(f, 'data') };
    case 'files':
      return { type, count: num(f, 'count'), bytes: num(f, 'bytes') };
  }
}

/**
 * A profile's parameters from its `prepared` (or `profile`) line, "k=v,k=v",
 * as a record; whole numbers become numbers ("nfds=1007" -> { nfds: 1007 }).
 */
export function parseProfileParams(text: string): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const pair of text.split(',')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    out[key] = /^-?\d{1,15}$/.test(value) ? Number(value) : value;
  }
  return out;
}

/** Parse one line (without its newline). Carriage returns from a serial console are tolerated. */
/** The checksum of a line body (`@hl1 type k=v ...`): CRC-32 of its bytes, 8 lower-case hex digits. */
function checksum(body: string): string {
  return (crc32(Buffer.from(body, 'latin1')) >>> 0).toString(16).padStart(8, '0');
}

/** Frame a probe line body with its checksum, as the probe prints it (scripted probes and guests in tests). */
export function frameLine(body: string): string {
  return `${body} #${checksum(body)}`;
}

export function parseLine(raw: string): ParsedLine {
  const line = raw.replace(/\r+$/, '');
  const start = line.indexOf(PREFIX);
  if (start < 0) return { kind: 'noise' };
  const framed = line.slice(start);
  const hash = framed.lastIndexOf(' #');
  if (hash < 0) return { kind: 'corrupt', line, reason: 'no checksum' };
  const body = framed.slice(0, hash);
  const sum = framed.slice(hash + 2);
  const expected = checksum(body);
  if (sum !== expected) return { kind: 'corrupt', line, reason: `checksum ${sum} does not match ${expected}` };
  const [, type = '', ...pairs] = body.split(' ');
  const fields: Record<string, string> = {};
  for (const p of pairs) {
    const eq = p.indexOf('=');
    if (eq < 0) return { kind: 'corrupt', line, reason: `field without '=': ${p}` };
    fields[p.slice(0, eq)] = unescape(p.slice(eq + 1));
  }
  try {
    return { kind: 'event', event: toEvent(type, fields) };
  } catch (err) {
    return { kind: 'corrupt', line, reason: (err as Error).message };
  }
}

/** Probe stages that run inside a measured round (docs/probe-protocol.md, `error`). */
const ROUND_STAGES: ReadonlySet<string> = new Set(['before-round', 'loop', 'after-round', 'state-check']);

/**
 * Describe a probe error event the way a user needs it: which call, which
 * round (only for stages inside a round), errno.
 */
export function describeProbeError(e: Extract<ProbeEvent, { type: 'error' }>): string {
  const where = e.profile === '-' ? '' : `profile ${e.profile}, `;
  // The probe writes round=0 for every stage; only these run inside a round.
  const inRound = ROUND_STAGES.has(e.stage) && e.round >= 0;
  const round = inRound ? `${e.warmup ? 'warm-up ' : ''}round ${e.round}, ` : '';
  const call = e.call >= 0 ? `call #${e.call} of ${e.syscall}, ` : '';
  const errno = e.errno ? `errno ${e.errno} ` : '';
  return `${where}${round}${call}stage ${e.stage}: ${errno}(${e.message})`;
}

/** Non-probe lines tried as the tail of a broken probe line before it counts as corrupt. */
const REJOIN_TRIES = 3;

/**
 * Reads probe lines off a console that may break a long line in two (seen
 * on qemu's emulated serial port on a loaded host: the rest of a line
 * arrived as a line of its own, sometimes after a kernel message). A probe
 * line without its checksum is held, and each of the next few non-probe
 * lines is tried as its tail; a joined line is used only when its CRC-32
 * matches, so a wrong join cannot pass.
 */
export class ConsoleLines {
  /** Probe lines that were broken and joined again (each verified by its CRC). */
  rejoined = 0;
  private broken: { head: string; tries: number } | null = null;

  /** Feed one raw console line; returns what is settled by it (events and corrupt lines, in order). */
  push(raw: string): ParsedLine[] {
    const line = raw.replace(/\r+$/, '');
    const out: ParsedLine[] = [];
    if (this.broken && !line.includes(PREFIX)) {
      const joined = parseLine(this.broken.head + line);
      if (joined.kind === 'event') {
        this.broken = null;
        this.rejoined++;
        return [joined];
      }
      if (++this.broken.tries >= REJOIN_TRIES) out.push(...this.flush());
    }
    const p = parseLine(line);
    if (p.kind === 'noise') return out;
    out.push(...this.flush());
    if (p.kind === 'corrupt' && p.reason === 'no checksum') this.broken = { head: line, tries: 0 };
    else out.push(p);
    return out;
  }

  /** A held broken line that found no tail: corrupt. Call at the end of the stream too. */
  flush(): Extract<ParsedLine, { kind: 'corrupt' }>[] {
    const b = this.broken;
    this.broken = null;
    return b ? [{ kind: 'corrupt', line: b.head, reason: 'no checksum' }] : [];
  }
}

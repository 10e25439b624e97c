/**
 * A box over ssh as a Target (`ssh://[user@]host[:port]`): jobs run on the
 * box over one multiplexed connection (./ssh-connection.ts), their stdout
 * streamed back line by line; the environment is read there in one round
 * trip (./ssh-reader.ts).
 *
 * The probe: the static build, copied once per build id to
 * `~/.cache/hintlab/probe-<buildId>` on the box and checked by sha256
 * before every run (copied again when it differs or is gone). It runs with
 * `--stdin-lease`, and the session's stdin is kept open with a newline
 * every few seconds: the probe stops (state restored) when the session
 * ends, when hintlab dies, or when the laptop vanishes without closing the
 * connection. Another program runs under a small shell watchdog that
 * stops it (SIGTERM) when its stdin ends.
 *
 * Invariant (Target): when `run` returns, the job no longer runs on the
 * box, or its session was cut and it will stop within the lease.
 */
import { readFileSync } from 'node:fs';
import type { ProbeBuild } from '../launch/probe-build.ts';
import type { SysReader } from '../environment/reader.ts';
import { UserError } from '../errors.ts';
import { shellLine, shellWord } from '../shell.ts';
import { ensureCopy } from './box-boot.ts';
import { parseSshUrl, type SshAddress } from './ssh-address.ts';
import { remotePath, SshConnection, type SshOptions, type StreamEnd } from './ssh-connection.ts';
import { fetchSnapshot, refreshLoad, snapshotReader, type Snapshot } from './ssh-reader.ts';
import type { Target, TargetEnd, TargetExit, TargetJob } from './target.ts';

/** The probe stops when nothing arrived on its stdin for this long. */
export const LEASE_SECONDS = 15;
/** hintlab writes a newline to the probe's stdin this often. */
export const HEARTBEAT_MS = 2000;

export interface SshTargetOptions extends SshOptions {
  /** The static probe (buildProbe({static: true})); none for a target that runs only other programs (macro's stress-ng). */
  probe?: ProbeBuild;
  /** Directory on the box for probe copies (default `~/.cache/hintlab`). */
  remoteCache?: string;
  leaseSeconds?: number;
  heartbeatMs?: number;
}

/** `uname -m` for the architecture this hintlab's static probe is built for. */
const UNAME_OF: Partial<Record<NodeJS.Architecture, string>> = { x64: 'x86_64', arm64: 'aarch64', ia32: 'i686', riscv64: 'riscv64', s390x: 's390x', ppc64: 'ppc64le' };

/**
 * Stop a program when the session's stdin ends: it runs in the background,
 * a loop of the shell's own `read` watches the stdin hintlab holds open,
 * and at its end SIGTERMs the program. The exit status is the program's.
 */
export function watchdogScript(argv: readonly string[]): string {
  return [
    'exec 3<&0 </dev/null',
    `${shellLine(argv)} &`,
    'p=$!',
    '{ while IFS= read -r _ <&3; do :; done; kill -TERM $p 2>/dev/null; } &',
    'w=$!',
    'wait $p; rc=$?',
    'kill $w 2>/dev/null',
    'exit $rc',
  ].join('\n');
}

function tail(lines: string[], n = 20): string[] {
  return lines.slice(-n);
}

export class SshTarget implements Target {
  readonly kind = 'remote' as const;
  readonly name: string;
  /** How many times the probe was copied to the box by this target (tests, diagnostics). */
  probeCopies = 0;
  private snapshot: Snapshot | null = null;

  private constructor(
    readonly address: SshAddress,
    private conn: SshConnection,
    private readonly opts: SshTargetOptions,
  ) {
    this.name = address.url;
  }

  /** The connection jobs run over (a new one after the box rebooted: see `adopt`). */
  get connection(): SshConnection {
    return this.conn;
  }

  /** One login to the box, as `connect` makes, without the architecture check (the box's again after a reboot). */
  openConnection(connectTimeoutSeconds?: number): Promise<SshConnection> {
    return SshConnection.open(this.address, { ...this.opts, connectTimeoutSeconds: connectTimeoutSeconds ?? this.opts.connectTimeoutSeconds });
  }

  /**
   * Run jobs over `conn` from now on (the box came back from a reboot): the
   * old connection is closed, and the environment is read afresh.
   */
  async adopt(conn: SshConnection): Promise<void> {
    const old = this.conn;
    this.conn = conn;
    this.snapshot = null;
    if (old !== conn) await old.close();
  }

  /** Connect to `url` (one login); refuses a box whose architecture the probe was not built for. */
  static async connect(url: string | SshAddress, opts: SshTargetOptions): Promise<SshTarget> {
    const address = typeof url === 'string' ? parseSshUrl(url) : url;
    const conn = await SshConnection.open(address, opts);
    const target = new SshTarget(address, conn, opts);
    try {
      const machine = (await conn.check('uname -m', 'uname -m')).toString().trim();
      const ours = UNAME_OF[process.arch] ?? process.arch;
      if (machine !== ours && !(ours === 'i686' && /^i[3-6]86$/.test(machine))) {
        throw new UserError(`${address.url} is ${machine}, but the probe hintlab builds here is for ${ours}: run hintlab on a ${machine} machine, or measure a ${ours} box`);
      }
    } catch (err) {
      await conn.close();
      throw err;
    }
    return target;
  }


  /** Where the probe of this build lives on the box. */
  get probePath(): string {
    return `${this.opts.remoteCache ?? '~/.cache/hintlab'}/probe-${this.probe().buildId}`;
  }

  private probe(): ProbeBuild {
    if (!this.opts.probe) throw new Error(`internal: ${this.name} was connected without a probe build`);
    return this.opts.probe;
  }

  /** Check the probe on the box by sha256; copy it (again) when missing or different. */
  async ensureProbe(): Promise<string> {
    const path = this.probePath;
    if (await ensureCopy(this.connection, readFileSync(this.probe().path), path, 'the probe', this.name, 0o755)) this.probeCopies++;
    return path;
  }

  /**
   * The box's /proc and /sys, read now in one round trip. The reader stays
   * live in one respect: /proc/loadavg is read again after every job, so a
   * run's load at the end is the box's after its last probe process.
   */
  async reader(): Promise<SysReader> {
    this.snapshot = await fetchSnapshot(this.connection);
    return snapshotReader(this.snapshot, this.name);
  }

  /** The command line run on the box (a POSIX shell command), and its working directory made for it. */
  private async command(job: TargetJob): Promise<{ cmd: string; dir: string | null }> {
    const needsDir = (job.files?.length ?? 0) > 0 || (job.collect?.length ?? 0) > 0;
    const dir = needsDir ? (await this.connection.check('mktemp -d', 'making a working directory')).toString().trim() : null;
    for (const f of job.files ?? []) await this.connection.put(f.data, `${dir}/${f.path}`, f.mode ?? 0o644);
    const cd = dir ? `cd ${shellWord(dir)} && ` : '';
    if (job.program === 'probe') {
      const probe = await this.ensureProbe();
      const lease = ['--stdin-lease', String(this.opts.leaseSeconds ?? LEASE_SECONDS)];
      // not exec'd: a probe killed by a signal comes back as 128+n, not as ssh's own 255
      return { cmd: `${cd}${remotePath(probe)} ${shellLine([...job.args, ...lease])}; exit $?`, dir };
    }
    return { cmd: `${cd}${watchdogScript([job.program.path, ...job.args])}`, dir };
  }

  async run(job: TargetJob, onLine: (line: string) => void, abort: AbortSignal): Promise<TargetExit> {
    const started = Date.now();
    const { cmd, dir } = await this.command(job);
    const stop = new AbortController();
    let timedOut = false;
    const timer = job.timeoutSeconds ? setTimeout(() => {
      timedOut = true;
      stop.abort();
    }, job.timeoutSeconds * 1000) : null;
    const outputTail: string[] = [];
    const streamed = await this.connection
      .stream(cmd, (l) => {
        outputTail.push(l);
        if (outputTail.length > 40) outputTail.shift();
        onLine(l);
      }, AbortSignal.any([abort, stop.signal]), { heartbeatMs: job.program === 'probe' ? (this.opts.heartbeatMs ?? HEARTBEAT_MS) : undefined })
      .finally(() => timer && clearTimeout(timer));
    const end = endOf(streamed, timedOut, job.timeoutSeconds ?? 0);
    const collected = end.kind === 'lost' ? new Map<string, Buffer>() : await this.collect(job, dir);
    if (dir && end.kind !== 'lost') await this.connection.exec(`rm -rf ${shellWord(dir)}`);
    await this.refreshLoad(end);
    const command = this.connection.byHandArgv(cmd);
    const byHand = shellLine(command);
    const stderrTail = tail(streamed.stderrTail);
    return {
      end,
      outputTail: tail(outputTail),
      stderrTail,
      elapsedMs: Date.now() - started,
      collected,
      command,
      describe: (what) => describeEnd(what, this.name, outputTail, stderrTail, byHand),
    };
  }

  /** The load after a job; never the start's value left standing when it cannot be read again. */
  private async refreshLoad(end: TargetEnd): Promise<void> {
    const snap = this.snapshot;
    if (!snap) return;
    const stale = (why: string): void => void snap.files.set('/proc/loadavg', { ok: false, reason: `/proc/loadavg: not read again after the job (${why})` });
    if (end.kind === 'lost') { stale('connection lost'); return; }
    await refreshLoad(this.connection, snap).catch((err: unknown) => stale((err as Error).message));
  }

  private async collect(job: TargetJob, dir: string | null): Promise<Map<string, Buffer>> {
    const out = new Map<string, Buffer>();
    for (const p of job.collect ?? []) {
      const abs = p.startsWith('/') ? p : `${dir}/${p}`;
      const r = await this.connection.exec(`cat ${shellWord(abs)}`);
      if (r.code === 0) out.set(p, r.stdout);
    }
    return out;
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}

/** A job that ended by itself after an abort reports its own exit (as on the host target); one past its time is `timeout`. */
function endOf(s: StreamEnd, timedOut: boolean, seconds: number): TargetEnd {
  if (s.kind === 'lost') return { kind: 'lost', reason: s.reason };
  if (timedOut) return { kind: 'timeout', seconds };
  if (s.kind === 'aborted') return { kind: 'aborted' };
  return { kind: 'exited', code: s.code, signal: null };
}

/** `what` (the session's account of the end), where it ran, what the job said last, and the command to run it by hand. */
function describeEnd(what: string, name: string, out: string[], err: string[], byHand: string): string {
  const lines = [`${what} (on ${name})`];
  if (out.length) lines.push('last output:', ...out.slice(-5).map((l) => `  | ${l}`));
  if (err.length) lines.push('stderr:', ...err.slice(-5).map((l) => `  | ${l}`));
  lines.push(`command: ${byHand}`);
  return lines.join('\n');
}

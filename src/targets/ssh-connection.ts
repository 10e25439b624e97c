/**
 * One connection to a box over the system OpenSSH client, so that the
 * user's ~/.ssh/config, agent, keys, known_hosts and ProxyJump all apply.
 *
 * One master connection (`ssh -M -N`) is opened per box and every command
 * runs over it as a multiplexed session (ControlPath in a private 0700 temp
 * directory), so a box is logged into once. The master runs under the
 * process supervisor (src/proc/supervise.ts): it ends with hintlab, even
 * after `kill -9`, and the sessions over it end with it. Sessions never
 * open a connection of their own (`ProxyCommand=false` behind the mux
 * socket): once the master is gone, every operation fails as `lost`.
 *
 * BatchMode=yes: ssh never prompts. A login that would need a password, a
 * passphrase or a host key question fails with a message naming the fix.
 * The master sends keep-alives (ServerAliveInterval), so a box that
 * vanishes without closing the connection is noticed within
 * `aliveIntervalSeconds * 3`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { UserError } from '../errors.ts';
import { spawnSupervised, type Supervised } from '../proc/supervise.ts';
import { shellLine, shellWord } from '../shell.ts';
import { connectFailure, destinationArgs, type SshAddress } from './ssh-address.ts';

export interface SshOptions {
  /** An ssh_config file to use instead of ~/.ssh/config (`ssh -F`); `$HINTLAB_SSH_CONFIG` in the CLI. */
  configFile?: string;
  /** More ssh arguments, before the destination (e.g. `-o`, `Port=2222`). */
  extraArgs?: string[];
  /** Give up connecting after this long (default 15). */
  connectTimeoutSeconds?: number;
  /** Keep-alive period of the master (default 5); the connection counts as lost after 3 unanswered. */
  aliveIntervalSeconds?: number;
  env?: NodeJS.ProcessEnv;
}

export interface ExecResult {
  /** The remote command's exit status (255 also when ssh itself failed). */
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

export interface ExecOptions {
  /** Bytes for the remote command's stdin (closed after them); none: stdin is empty. */
  input?: Buffer;
  timeoutMs?: number;
}

/** How a streamed remote command ended. */
export type StreamEnd =
  /** The command ended by itself (also after an abort closed its stdin). */
  | { kind: 'exited'; code: number | null; stderrTail: string[] }
  /** Aborted, and the command did not end within the grace period: its session was cut. */
  | { kind: 'aborted'; stderrTail: string[] }
  /** The connection to the box dropped under the command. */
  | { kind: 'lost'; reason: string; stderrTail: string[] };

export interface StreamOptions {
  /**
   * Write a newline to the command's stdin this often. A remote job that
   * stops when its stdin is quiet for too long (the probe's --stdin-lease)
   * then also stops when the laptop vanishes without closing the connection.
   */
  heartbeatMs?: number;
  /** After an abort, how long the command has to end by itself after its stdin closed, before its session is cut (default 10 s). */
  graceMs?: number;
}

/** The connection went away: the master ended or no longer answers. */
export class SshConnectionLost extends UserError {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`connection to ${url} lost: ${reason}`);
  }
}

const TAIL = 20;

function pushTail(tail: string[], line: string): void {
  tail.push(line);
  if (tail.length > TAIL) tail.shift();
}

/** A path on the box as a shell word; a leading `~/` becomes `"$HOME"/`. */
export function remotePath(path: string): string {
  return path.startsWith('~/') ? `"$HOME"/${shellWord(path.slice(2))}` : shellWord(path);
}

/**
 * Remove control directories left by a hintlab that was killed (its master
 * was killed by the supervisor, but nothing removed the directory).
 */
function sweepStaleDirs(base: string): void {
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^hintlab-ssh-(\d+)-/.exec(name);
    if (!m || Number(m[1]) === process.pid) continue;
    try {
      process.kill(Number(m[1]), 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') rmSync(join(base, name), { recursive: true, force: true });
    }
  }
}

/**
 * sun_path holds 108 bytes with its NUL, and ssh first binds the socket as
 * `ControlPath` plus `.` and 16 random characters, then renames it.
 */
const SOCKET_PATH_MAX = 107;

/**
 * Where the control directory goes: $TMPDIR when the socket path fits and
 * holds only characters ssh takes literally (it expands `%` tokens, `${VAR}`
 * and a leading `~` in ControlPath and -S), /tmp otherwise.
 */
export function controlBase(base = tmpdir()): string {
  const longest = join(base, `hintlab-ssh-${process.pid}-XXXXXX`, 'master.XXXXXXXXXXXXXXXX');
  return /^\/[\w./-]*$/.test(base) && Buffer.byteLength(longest) <= SOCKET_PATH_MAX ? base : '/tmp';
}

export class SshConnection {
  private masterEnd: string | null = null;

  /** Read through a call: the master's exit handler sets masterEnd while a check awaits. */
  private masterEnded(): boolean {
    return this.masterEnd !== null;
  }
  private readonly masterStderr: string[] = [];
  private readonly sessions = new Set<ChildProcess>();
  private closed = false;

  private constructor(
    readonly address: SshAddress,
    private readonly opts: SshOptions,
    private readonly dir: string,
    private readonly master: Supervised,
  ) {
    createInterface({ input: master.stderr }).on('line', (l) => pushTail(this.masterStderr, l));
    master.exit.then(
      (e) => (this.masterEnd = e.signal ? `the ssh master connection was killed by ${e.signal}` : `the ssh master connection exited with status ${e.code}`),
      (err: unknown) => (this.masterEnd = (err as Error).message),
    );
  }

  /** Log into the box once; resolves when commands can run over the connection. */
  static async open(address: SshAddress, opts: SshOptions = {}): Promise<SshConnection> {
    const base = controlBase();
    sweepStaleDirs(base);
    // mkdtemp: mode 0700, a random name
    const dir = mkdtempSync(join(base, `hintlab-ssh-${process.pid}-`));
    const control = join(dir, 'master');
    const timeout = opts.connectTimeoutSeconds ?? 15;
    const argv = [
      'ssh',
      ...SshConnection.baseArgs(opts),
      '-M',
      '-N',
      '-o', `ControlPath=${control}`,
      '-o', 'ControlPersist=no',
      '-o', `ConnectTimeout=${timeout}`,
      '-o', `ServerAliveInterval=${opts.aliveIntervalSeconds ?? 5}`,
      '-o', 'ServerAliveCountMax=3',
      ...destinationArgs(address),
    ];
    let master: Supervised;
    try {
      master = spawnSupervised(argv, { stdout: 'ignore', stderr: 'pipe', env: opts.env });
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
    const conn = new SshConnection(address, opts, dir, master);
    await conn.waitReady(control, (timeout + 10) * 1000);
    return conn;
  }

  private static baseArgs(opts: SshOptions): string[] {
    return [...(opts.configFile ? ['-F', opts.configFile] : []), '-o', 'BatchMode=yes', ...(opts.extraArgs ?? [])];
  }

  /** The master creates its control socket once logged in: ready. */
  private async waitReady(control: string, boundMs: number): Promise<void> {
    const until = Date.now() + boundMs;
    let startError = null as Error | null;
    this.master.exit.catch((err: unknown) => (startError = err as Error));
    while (!existsSync(control)) {
      if (startError !== null) {
        await this.close();
        const e = startError as NodeJS.ErrnoException;
        throw e.code === 'ENOENT' ? new UserError(`cannot connect to ${this.address.url}: the ssh client is not installed (apt-get install -y openssh-client)`) : e;
      }
      if (this.masterEnd !== null) {
        await sleep(50); // the last stderr lines
        const said = this.masterStderr.join('\n');
        const end = this.masterEnd;
        await this.close();
        throw connectFailure(this.address, said, end.replace(/^the ssh master connection /, ''));
      }
      if (Date.now() > until) {
        await this.close();
        throw new UserError(`cannot connect to ${this.address.url}: no login after ${Math.round(boundMs / 1000)} s (ssh: ${this.masterStderr.join(' | ') || 'no message'})`);
      }
      await sleep(50);
    }
  }

  /** ssh arguments of a session over the master, up to and including the destination. */
  private sessionArgs(): string[] {
    return [
      ...SshConnection.baseArgs(this.opts),
      '-S', join(this.dir, 'master'),
      '-o', 'ControlMaster=no',
      // never a connection of its own: with the master gone, fail instead
      '-o', 'ProxyCommand=false',
      '-T',
      ...destinationArgs(this.address),
    ];
  }

  /** `command` as a user would run it by hand over ssh: the argument vector. */
  byHandArgv(command: string): string[] {
    return ['ssh', ...(this.opts.configFile ? ['-F', this.opts.configFile] : []), ...(this.opts.extraArgs ?? []), ...destinationArgs(this.address), command];
  }

  /** `command` as a user would run it by hand over ssh (for messages). */
  byHand(command: string): string {
    return shellLine(this.byHandArgv(command));
  }

  private ensureOpen(): void {
    if (this.closed) throw new Error(`the connection to ${this.address.url} is closed`);
    if (this.masterEnd !== null) throw new SshConnectionLost(this.address.url, this.lostReason());
  }

  /**
   * Why the connection is gone, once the master's own end is known: a
   * session sees a killed master (exit 255, `-O check` failing) before the
   * supervisor reports its exit, so wait a little for that word.
   */
  private async settledLostReason(): Promise<string> {
    if (this.masterEnd === null) await Promise.race([this.master.exit.catch(() => undefined), sleep(2000)]);
    return this.lostReason();
  }

  /** Why the connection is gone, from what the master said. */
  lostReason(): string {
    const said = this.masterStderr.filter((l) => l.trim()).slice(-2).join(' | ');
    return `${this.masterEnd ?? 'the ssh master no longer answers'}${said ? ` (ssh: ${said})` : ''}`;
  }

  private startSession(command: string, stdin: 'pipe' | 'ignore'): ChildProcess {
    const child = spawn('ssh', [...this.sessionArgs(), command], {
      stdio: [stdin, 'pipe', 'pipe'],
      env: this.opts.env,
      // its own process group: a Ctrl-C reaches hintlab, which decides how the remote command stops
      detached: true,
    });
    this.sessions.add(child);
    child.on('close', () => this.sessions.delete(child));
    child.stdin?.on('error', () => {}); // the session may end before a write: nothing to do
    return child;
  }

  /** Whether the master still carries sessions (it exited, or `ssh -O check` fails: no). */
  async alive(): Promise<boolean> {
    if (this.masterEnd !== null || this.closed) return false;
    const check = spawn('ssh', [...SshConnection.baseArgs(this.opts), '-S', join(this.dir, 'master'), '-O', 'check', ...destinationArgs(this.address)], {
      stdio: 'ignore',
      env: this.opts.env,
    });
    const code = await new Promise<number | null>((res) => {
      check.on('error', () => res(null));
      check.on('close', (c) => res(c));
    });
    return code === 0 && !this.masterEnded();
  }

  /** Run `command` (a POSIX shell command line) on the box and collect its output. */
  async exec(command: string, opts: ExecOptions = {}): Promise<ExecResult> {
    this.ensureOpen();
    const child = this.startSession(command, 'pipe');
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => err.push(b));
    child.stdin?.end(opts.input ?? Buffer.alloc(0));
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : null;
    const code = await new Promise<number | null>((res, rej) => {
      child.on('error', rej);
      child.on('close', (c) => res(c));
    }).finally(() => timer && clearTimeout(timer));
    const result = { code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') };
    if (code === 255 && !(await this.alive())) throw new SshConnectionLost(this.address.url, await this.settledLostReason());
    return result;
  }

  /** Run `command`; its stdout, or a UserError with its stderr when it fails. */
  async check(command: string, what: string, opts: ExecOptions = {}): Promise<Buffer> {
    const r = await this.exec(command, opts);
    if (r.code !== 0) {
      throw new UserError(`${what} on ${this.address.url} failed (exit ${r.code}): ${r.stderr.trim() || 'no message'}\nby hand: ${this.byHand(command)}`);
    }
    return r.stdout;
  }

  /**
   * Write `data` to `path` on the box (parent directories created), through
   * a temporary name and a rename, so a reader never sees half a file. The
   * temporary name is random and created exclusively (`set -C`: the shell
   * opens it with O_EXCL), so a file or link another user planted there on
   * the box is never written through.
   */
  async put(data: Buffer, path: string, mode = 0o644): Promise<void> {
    const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) || '/' : '.';
    const tmp = `${path}.tmp-hintlab-${randomBytes(8).toString('hex')}`;
    const cmd =
      `umask 077 && set -C && mkdir -p ${remotePath(dir)} && cat > ${remotePath(tmp)} && ` +
      `chmod ${mode.toString(8)} ${remotePath(tmp)} && mv -f ${remotePath(tmp)} ${remotePath(path)}`;
    await this.check(cmd, `writing ${path}`, { input: data });
  }

  /**
   * Run `command` with its stdout streamed line by line to `onLine`. Its
   * stdin stays open (heartbeats on it if asked) until it ends; on `abort`
   * stdin is closed, and a command still running after `graceMs` has its
   * session cut (`aborted`); one that ends by itself reports its own exit.
   */
  async stream(command: string, onLine: (line: string) => void, abort: AbortSignal, opts: StreamOptions = {}): Promise<StreamEnd> {
    this.ensureOpen();
    const child = this.startSession(command, 'pipe');
    const stderrTail: string[] = [];
    createInterface({ input: child.stdout! }).on('line', onLine);
    createInterface({ input: child.stderr! }).on('line', (l) => pushTail(stderrTail, l));
    const beat = opts.heartbeatMs ? setInterval(() => child.stdin?.write('\n'), opts.heartbeatMs) : null;
    let cutOff = false as boolean;
    let cut: NodeJS.Timeout | null = null;
    const onAbort = (): void => {
      if (beat) clearInterval(beat);
      child.stdin?.end();
      cut = setTimeout(() => ((cutOff = true), child.kill('SIGKILL')), opts.graceMs ?? 10_000);
    };
    if (abort.aborted) onAbort();
    else abort.addEventListener('abort', onAbort, { once: true });
    const code = await new Promise<number | null>((res, rej) => {
      child.on('error', rej);
      // 'close': the output is read to the end as well
      child.on('close', (c) => res(c));
    }).finally(() => {
      if (beat) clearInterval(beat);
      if (cut) clearTimeout(cut);
      abort.removeEventListener('abort', onAbort);
    });
    if (cutOff) return { kind: 'aborted', stderrTail };
    if (code === 255 && !(await this.alive())) return { kind: 'lost', reason: await this.settledLostReason(), stderrTail };
    return { kind: 'exited', code, stderrTail };
  }

  /** The master's pid on this machine (the supervisor's), for tests and diagnostics. */
  get masterPid(): number | undefined {
    return this.master.pid;
  }

  /** End the sessions and the master, remove the control directory. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.sessions) s.kill('SIGKILL');
    if (this.masterEnd === null) {
      this.master.signal('SIGTERM');
      const ended = await Promise.race([this.master.exit.then(() => true, () => true), sleep(3000).then(() => false)]);
      if (!ended) this.master.signal('SIGKILL');
      await this.master.exit.catch(() => undefined);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

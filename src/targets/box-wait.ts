/**
 * After a box was told to boot: wait until ssh answers on a NEW boot (its
 * boot id changed), bounded, and check that it runs the intended kernel.
 *
 * Each attempt is a fresh login (the old connection went down with the old
 * kernel). A box that answers with its old boot id has not gone down yet;
 * one that still does after `downBoundMs` never will (kexec -e returned:
 * its log on the box says why). A box that never answers again is reported
 * with how long hintlab waited, whether the box went down at all, and the
 * last thing ssh said.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { UserError } from '../errors.ts';
import { bootToken, type BoxFacts, type BoxShell, ownCmdline, readFacts } from './box-facts.ts';
import { formatSecondsOfMs } from '../format/durations.ts';

/** A fresh login to the box, with the facts of the boot it is on. */
export interface Login<C extends BoxShell> {
  connection: C;
  facts: BoxFacts;
}

export interface WaitOptions<C extends BoxShell> {
  name: string;
  /** One login attempt (bounded by the connection's own timeout); rejects with ssh's words. */
  connect(): Promise<C>;
  close(connection: C): Promise<void>;
  /** The boot id the box had before: the new boot must have another. */
  oldBootId: string;
  /** When the box was told to go down (Date.now()). */
  startedAt: number;
  boundMs: number;
  /** A box still on its old boot after this long did not go down (default 90 s). */
  downBoundMs?: number;
  /** Pause between attempts (default 2 s). */
  pauseMs?: number;
  /** What made it go down, for messages: `kexec -e`, `reboot`. */
  command: string;
  abort: AbortSignal;
  /** Each attempt's outcome, for progress lines. */
  onAttempt?(seenMs: number, what: string): void;
  /** Read on the old boot when it never went down: what the boot command said. */
  bootLog?(connection: C): Promise<string>;
}

export interface WaitReport {
  /** From the boot command to ssh answering on the new boot. */
  waitedMs: number;
  /** When the first login that failed began (the box was down then), or null if hintlab never caught it down. */
  downAfterMs: number | null;
  attempts: number;
}

/** The box did not come back (or never went down): what hintlab saw. */
export class BoxDidNotReturn extends UserError {
  constructor(
    message: string,
    readonly waitedMs: number,
    readonly wentDown: boolean,
    readonly lastSeen: string,
  ) {
    super(message);
  }
}

const seconds = formatSecondsOfMs;

/** The first line of an ssh login failure that says what happened. */
function shortError(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const said = /\(ssh: ([^)]*)\)/.exec(text)?.[1];
  return (said ?? text.split('\n')[0] ?? text).trim();
}

/** Wait for ssh on a new boot; the login (connection and facts) once it answers. */
export async function waitForNewBoot<C extends BoxShell>(o: WaitOptions<C>): Promise<Login<C> & WaitReport> {
  let attempts = 0;
  let downAt: number | null = null;
  let lastSeen = 'nothing yet';
  let oldBootLog = '';
  const since = (): number => Date.now() - o.startedAt;
  await sleep(Math.min(o.pauseMs ?? 2000, 2000));
  while (since() < o.boundMs) {
    if (o.abort.aborted) throw new UserError(`interrupted while waiting for ${o.name} to come back after ${o.command} (${seconds(since())} in; last seen: ${lastSeen})`, 130);
    attempts++;
    const attemptAt = Date.now();
    let conn: C | null = null;
    let seen: string;
    try {
      conn = await o.connect();
      const facts = await readFacts(conn, o.name);
      if (facts.bootId !== o.oldBootId) {
        o.onAttempt?.(since(), `up on a new boot (${facts.release})`);
        return { connection: conn, facts, waitedMs: since(), downAfterMs: downAt === null ? null : downAt - o.startedAt, attempts };
      }
      seen = `answered on its old boot (boot id ${facts.bootId})`;
      lastSeen = `answered at ${seconds(since())} on its old boot (boot id ${facts.bootId})`;
      if (o.bootLog) oldBootLog = (await o.bootLog(conn).catch(() => '')).trim();
      await o.close(conn);
      conn = null;
      if (since() > (o.downBoundMs ?? 90_000)) break;
    } catch (err) {
      if (conn) await o.close(conn).catch(() => undefined);
      // the box was down when this login began
      downAt ??= attemptAt;
      seen = `ssh: ${shortError(err)}`;
      lastSeen = `ssh at ${seconds(since())}: ${shortError(err)}`;
    }
    o.onAttempt?.(since(), seen);
    await sleep(o.pauseMs ?? 2000);
  }
  throw notReturned(o, since(), attempts, downAt, lastSeen, oldBootLog);
}

function notReturned<C extends BoxShell>(o: WaitOptions<C>, waited: number, attempts: number, downAt: number | null, lastSeen: string, bootLog: string): BoxDidNotReturn {
  if (downAt === null) {
    const said = bootLog ? ` ${o.command} left this on the box: ${bootLog.split('\n').slice(-3).join(' | ')}` : '';
    return new BoxDidNotReturn(
      `${o.name} never went down after ${o.command}: it kept answering on its old boot for ${seconds(waited)} (${attempts} logins; last: ${lastSeen}).${said}`,
      waited,
      false,
      lastSeen,
    );
  }
  return new BoxDidNotReturn(
    `${o.name} did not answer on a new boot within ${seconds(o.boundMs)} of ${o.command}: hintlab waited ${seconds(waited)} (${attempts} logins). ` +
      `It went down (the first login that failed began ${seconds(downAt - o.startedAt)} after ${o.command}); the last thing seen: ${lastSeen}. ` +
      'The kernel may not have booted (check the box\'s console); a power cycle returns the box to its default kernel.',
    waited,
    true,
    lastSeen,
  );
}

/** What a boot must show: the token on its command line and the release the image's header names. */
export interface Expected {
  what: string;
  release: string;
  /** `uname -v` the boot must show (from the image's header, or recorded at the start); '' when not known. */
  version: string;
  /** Null for a plain reboot to the default entry (no token on its command line). */
  token: string | null;
  /** For a plain reboot: the command line the default entry boots with (compared without BOOT_IMAGE=). */
  cmdline?: string;
}

/** Null when `facts` show the expected kernel, else what differs, in a user's words. */
export function mismatch(facts: BoxFacts, want: Expected): string | null {
  const problems: string[] = [];
  if (facts.release !== want.release) problems.push(`uname -r says ${facts.release}, expected ${want.release}`);
  else if (want.version && facts.version !== want.version) problems.push(`uname -v says '${facts.version}', expected '${want.version}' (the same release, another build)`);
  const token = bootToken(facts.cmdline);
  if (want.token !== null && token !== want.token) {
    problems.push(`/proc/cmdline ${token ? `carries another boot's token (hintlab.boot=${token})` : 'has no hintlab.boot= token'}, expected hintlab.boot=${want.token} (it reads: ${facts.cmdline})`);
  }
  if (want.cmdline !== undefined && ownCmdline(facts.cmdline) !== ownCmdline(want.cmdline)) problems.push(`its command line is '${facts.cmdline}', it started with '${want.cmdline}'`);
  if (want.token === null && token !== null) problems.push(`/proc/cmdline still carries hintlab.boot=${token}: this is a boot hintlab started, not the default entry`);
  return problems.length ? `${want.what}: ${problems.join('; ')}` : null;
}

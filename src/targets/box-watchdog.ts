/**
 * The box's side of "a box ends on the kernel it started on", for when
 * hintlab cannot see to it (kill -9, a laptop closed, the network gone): a
 * small shell loop started on the box whenever hintlab leaves it on a test
 * kernel. It reboots the box (to its default entry, the kernel it started
 * on: hintlab never changes that) once hintlab's heartbeat has been quiet
 * for `boundSeconds`.
 *
 * The heartbeat is one ssh session over the box's connection whose stdin
 * hintlab writes a newline to every few seconds; the box truncates a beat
 * file on each line (a shell builtin, no process per beat). The session
 * ends with hintlab's ssh master, which ends with hintlab, so the beats
 * stop however hintlab ends. The watchdog runs in a session of its own
 * (setsid), so it outlives the ssh session that started it; it ends when
 * hintlab cancels it (its beat file removed: a cancel removes every
 * watchdog's, so none left by an earlier connection lingers), when it
 * reboots the box, or with the kernel (kexec, reboot). Each one armed has
 * an id of its own.
 */
import { randomBytes } from 'node:crypto';
import { shellWord } from '../shell.ts';
import { type BoxFacts, type BoxShell, privileged, SBIN_PATH } from './box-facts.ts';
import type { StreamEnd, StreamOptions } from './ssh-connection.ts';
import { remotePath } from './ssh-connection.ts';

/** Where the watchdog keeps its beat, cancel and log files on the box. */
export const WATCHDOG_DIR = '~/.cache/hintlab/watchdog';

/** hintlab's heartbeat period. */
export const BEAT_MS = 2000;

/** The part of a connection the heartbeat needs. */
export interface BoxStreamer {
  stream(command: string, onLine: (line: string) => void, abort: AbortSignal, opts?: StreamOptions): Promise<StreamEnd>;
}

/**
 * The watchdog loop, as run on the box (POSIX sh, coreutils or busybox
 * `date` and `stat`). It says what it does in its log and, as root, on the
 * kernel log (the console). `reboot` is what it runs once hintlab has been
 * quiet for `boundSeconds` (a test runs the loop here with a harmless one).
 */
export function watchdogScript(facts: Pick<BoxFacts, 'uid'>, id: string, boundSeconds: number, reboot = `${privileged(facts, 'reboot')}; sleep 60; ${privileged(facts, 'reboot -f')}`): string {
  const say = 'say() { echo "$(date +%FT%T) hintlab watchdog ' + id + ': $*" >> "$d/log"; echo "hintlab watchdog: $*" > /dev/kmsg 2>/dev/null; }';
  return [
    SBIN_PATH,
    `d="$HOME"/${shellWord(WATCHDOG_DIR.slice(2))}; beat="$d/beat-${id}"`,
    say,
    ': > "$beat"',
    `say "armed: reboots the box when the heartbeat is quiet for ${boundSeconds} s"`,
    'while :; do',
    '  sleep 2',
    '  last=$(stat -c %Y "$beat" 2>/dev/null) || { say cancelled; exit 0; }',
    // whole seconds on both sides: -gt makes the real quiet time at least the bound (at most bound + 3 s with the 2 s loop)
    `  if [ $(( $(date +%s) - last )) -gt ${boundSeconds} ]; then`,
    `    say "no heartbeat from hintlab for ${boundSeconds} s: rebooting to the default kernel"`,
    `    sync; ${reboot}; exit 1`,
    '  fi',
    'done',
  ].join('\n');
}

/** The command that starts the watchdog in a session of its own and returns at once. */
export function startWatchdogCommand(facts: Pick<BoxFacts, 'uid'>, id: string, boundSeconds: number): string {
  const script = watchdogScript(facts, id, boundSeconds);
  return `mkdir -p ${remotePath(WATCHDOG_DIR)} && (if command -v setsid >/dev/null; then setsid sh -c ${shellWord(script)}; else nohup sh -c ${shellWord(script)}; fi < /dev/null > /dev/null 2>&1 &)`;
}

/** Shell text that cancels every watchdog on the box (run before hintlab boots another kernel or leaves the box on purpose). */
export function cancelWatchdogCommand(): string {
  return `rm -f ${remotePath(WATCHDOG_DIR)}/beat-*; `;
}

/** The heartbeat's command on the box: each line hintlab writes marks the beat file (while it exists: a cancelled watchdog stays cancelled). */
export function heartbeatCommand(id: string): string {
  return `b=${remotePath(`${WATCHDOG_DIR}/beat-${id}`)}; while IFS= read -r _; do [ -e "$b" ] && : > "$b"; done`;
}

export interface Watchdog {
  id: string;
  boundSeconds: number;
  /** Settles when the heartbeat session ends (stopped, or the connection went away). */
  readonly beating: Promise<StreamEnd>;
  /** Stop the heartbeat (the watchdog keeps counting: cancel it, or boot, first). */
  stopBeating(): Promise<void>;
}

/** Arm a watchdog on the box (after cancelling any left there) and start hintlab's heartbeat to it. */
export async function armWatchdog(conn: BoxShell & BoxStreamer, facts: Pick<BoxFacts, 'uid'>, boundSeconds: number, name: string): Promise<Watchdog> {
  const id = `w${randomBytes(4).toString('hex')}`;
  const started = await conn.exec(`${cancelWatchdogCommand()}${startWatchdogCommand(facts, id, boundSeconds)}`);
  if (started.code !== 0) throw new Error(`starting the watchdog on ${name} failed (exit ${started.code}): ${started.stderr.trim() || 'no message'}`);
  const stop = new AbortController();
  const beating = conn.stream(heartbeatCommand(id), () => {}, stop.signal, { heartbeatMs: BEAT_MS, graceMs: 3000 });
  return {
    id,
    boundSeconds,
    beating,
    async stopBeating() {
      stop.abort();
      await beating.catch(() => undefined);
    },
  };
}

/**
 * Errors of the domain, on the bottom floor: every layer (store, bench, vm,
 * kernel, codegen, hints, report) raises them, and only the CLI
 * (src/cli/main.ts) turns them into messages and exit statuses. Nothing
 * here imports another hintlab module.
 */

/**
 * A failure the user can fix: printed as `hintlab: <message>` without a stack
 * trace, exit status 2 for usage errors, 128 + the signal after Ctrl-C
 * (130), SIGHUP (129) or SIGTERM (143), and 1 otherwise.
 */
export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 | 129 | 130 | 143 = 1,
  ) {
    super(message);
  }
}

/**
 * The reader of an output went away (EPIPE: `-o /dev/stdout | head`, a FIFO
 * whose reader closed). Not a failure: the CLI stops quietly with exit 0,
 * as it does when plain stdout is piped into `head`.
 */
export class OutputClosed extends UserError {
  constructor(readonly shownAs: string) {
    super(`${shownAs}: its reader closed it (EPIPE)`);
  }
}

/**
 * Characters that must not reach a terminal raw from a message: C0 controls
 * (NUL, ESC, BEL, newline...), DEL, C1 controls (CSI, OSC as U+009B,
 * U+009D), Unicode line separators and the bidirectional overrides that
 * reorder what is shown (U+202A-U+202E, U+2066-U+2069).
 */
const UNPRINTABLE_ONE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const UNPRINTABLE = new RegExp(UNPRINTABLE_ONE.source, 'g');

/**
 * Input (a name, a path, a line of a file) as it may be quoted in a
 * message: every character of UNPRINTABLE written as an escape (`\x1b`,
 * `\x00`, `\u2028`), so ESC/OSC sequences in a file or a name are shown,
 * never run by the terminal, and a NUL is visible.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, escapeChar);
}

/** A whole message: like `printable`, but its own line breaks (`\n`) stay. */
export function printableMessage(text: string): string {
  return text.replace(UNPRINTABLE, (c) => (c === '\n' ? c : escapeChar(c)));
}

/** The first unprintable character of `text` as `U+001B at column 4` (1-based), or null. */
export function firstUnprintable(text: string): string | null {
  const m = UNPRINTABLE_ONE.exec(text);
  if (!m) return null;
  return `U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} at column ${m.index + 1}`;
}

function escapeChar(c: string): string {
  const n = c.codePointAt(0)!;
  return n <= 0xff ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
}

/**
 * `ssh://[user@]host[:port]`, the address of a box hintlab drives over ssh,
 * and the explanation of an ssh client's failure to reach it (what went
 * wrong, and the fix), from what OpenSSH printed.
 */
import { printable, UserError } from '../errors.ts';
import { shellLine } from '../shell.ts';

export interface SshAddress {
  /** As given, normalized: `ssh://lab@box1:2222`. Stored with runs, shown in messages. */
  url: string;
  user: string | null;
  /** Host name, alias from ~/.ssh/config, or address (IPv6 without brackets). */
  host: string;
  port: number | null;
}

const USAGE = 'give it as ssh://[user@]host[:port], e.g. ssh://lab@box1 or ssh://root@10.0.0.5:2222';

/**
 * What a host can be: a DNS name or ~/.ssh/config alias (letters, digits,
 * '.', '-', and '_' which aliases use), an IPv4 address, or an IPv6 one in
 * brackets. A user: a POSIX portable user name. Nothing else reaches ssh's
 * command line or a command printed for pasting into a shell.
 */
const HOST_CHAR = /[A-Za-z0-9._-]/;
const IPV6_CHAR = /[0-9A-Fa-f:.]/;
const USER_CHAR = /[A-Za-z0-9._-]/;

/** The first character of `text` that `allowed` does not take, named for a message; null when all are taken. */
function badChar(text: string, allowed: RegExp): string | null {
  const c = Array.from(text).find((ch) => !allowed.test(ch));
  if (c === undefined) return null;
  return `'${printable(c)}' (U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`;
}

/** Parse `ssh://[user@]host[:port]`; a UserError naming `flag` and the expected form otherwise. */
export function parseSshUrl(text: string, flag = '--target'): SshAddress {
  const bad = (why: string): never => {
    throw new UserError(`${flag} '${printable(text)}': ${why}; ${USAGE}`, 2);
  };
  if (!text.startsWith('ssh://')) bad('not an ssh:// address');
  const rest = text.slice('ssh://'.length).replace(/\/$/, '');
  const m = /^(?:([^@/:\s]+)@)?(\[[0-9A-Fa-f:.]+\]|[^@/:\s[\]]+)(?::(\d+))?$/.exec(rest);
  if (!m?.[2]) bad('expected [user@]host[:port] after ssh://, with no path');
  const bracketed = m![2]!.startsWith('[');
  const host = m![2]!.replace(/^\[(.*)\]$/, '$1');
  if (host.startsWith('-')) bad('a host cannot start with -');
  if (m![1]?.startsWith('-')) bad('a user cannot start with -');
  const inHost = badChar(host, bracketed ? IPV6_CHAR : HOST_CHAR);
  if (inHost) bad(`the host holds ${inHost}, which no host name, alias or address has (letters, digits, '.', '-' and '_')`);
  const inUser = m![1] === undefined ? null : badChar(m![1], USER_CHAR);
  if (inUser) bad(`the user holds ${inUser}, which no user name has (letters, digits, '.', '-' and '_')`);
  let port: number | null = null;
  if (m![3] !== undefined) {
    port = Number(m![3]);
    if (!Number.isInteger(port) || port < 1 || port > 65535) bad(`port ${m![3]} is not between 1 and 65535`);
  }
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const url = `ssh://${m![1] ? `${m![1]}@` : ''}${shownHost}${port !== null ? `:${port}` : ''}`;
  return { url, user: m![1] ?? null, host, port };
}

/** The `ssh` arguments that name the box: `-p PORT -l USER HOST` (the destination last). */
export function destinationArgs(a: SshAddress): string[] {
  return [...(a.port !== null ? ['-p', String(a.port)] : []), ...(a.user !== null ? ['-l', a.user] : []), a.host];
}

/** The part of ssh's stderr worth showing: its own messages, not the banner or empty lines. */
function sshSaid(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.slice(-3).join(' | ') || 'no message';
}

/**
 * What an ssh client that could not log in means, with the fix. hintlab
 * runs ssh with BatchMode=yes, so it never prompts: a password login, a
 * passphrase without an agent, or an unknown host key all fail here instead.
 */
export function connectFailure(a: SshAddress, stderr: string, exit: string): UserError {
  const said = sshSaid(stderr);
  const login = a.user !== null ? `${a.user}@${a.host}` : a.host;
  const byHandArgv = ['ssh', ...(a.port !== null ? ['-p', String(a.port)] : []), login];
  const byHand = shellLine(byHandArgv);
  const tryIt = shellLine([...byHandArgv, 'true']);
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for .* has changed/i.test(stderr)) {
    return new UserError(
      `cannot connect to ${a.url}: its host key changed since it was recorded in known_hosts (ssh: ${said}). ` +
        `If the box was reinstalled, remove the old key with '${shellLine(['ssh-keygen', '-R', a.host])}' and check the new fingerprint with '${byHand}'`,
    );
  }
  if (/Host key verification failed|No \S+ host key is known/i.test(stderr)) {
    return new UserError(
      `cannot connect to ${a.url}: its host key is not in your known_hosts, and hintlab never answers ssh's question (ssh: ${said}). ` +
        `Connect once by hand ('${byHand}'), check the fingerprint and accept it, then run hintlab again`,
    );
  }
  if (/Permission denied|Too many authentication failures|no matching host key type|Authentication failed/i.test(stderr)) {
    return new UserError(
      `${a.url} refused the login (ssh: ${said}). hintlab logs in without prompting (BatchMode): install your public key ` +
        `on the box ('${shellLine(['ssh-copy-id', ...(a.port !== null ? ['-p', String(a.port)] : []), login])}') and, ` +
        `if the key has a passphrase, load it into your agent ('ssh-add'); '${tryIt}' must work without a question`,
    );
  }
  if (/Could not resolve hostname|Name or service not known|Temporary failure in name resolution/i.test(stderr)) {
    return new UserError(`cannot reach ${a.url}: the host name does not resolve (ssh: ${said}); check the name, or add a Host entry for it in ~/.ssh/config`);
  }
  if (/Connection refused|No route to host|Network is unreachable|timed out|Connection closed|Connection reset|kex_exchange_identification/i.test(stderr)) {
    return new UserError(
      `cannot reach ${a.url} (ssh: ${said}): check that the box is up, that sshd listens on ${a.port ?? 'port 22 (or the Port of your ~/.ssh/config)'}, ` +
        `and that '${tryIt}' works from here`,
    );
  }
  if (/unix_listener|ControlPath|ControlSocket|Unix domain socket/i.test(stderr)) {
    // hintlab's own control socket, which a command typed by hand does not use: no claim that it fails the same way
    return new UserError(
      `cannot connect to ${a.url}: ssh could not create hintlab's control socket on this machine (ssh: ${said}); ` +
        'the box was not the problem: set TMPDIR to a short writable directory (e.g. TMPDIR=/tmp), then run again',
    );
  }
  return new UserError(`cannot connect to ${a.url}: ssh ${exit} (ssh: ${said}); '${tryIt}' should show the same problem (add -v for ssh's account)`);
}

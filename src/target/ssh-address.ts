/**
 * `ssh://[user@]host[:port]`, the address of a box hintlab drives over ssh,
 * and the explanation of an ssh client's failure to reach it (what went
 * wrong, and the fix), from what OpenSSH printed.
 */
import { UserError } from '../errors.ts';

export interface SshAddress {
  /** As given, normalized: `ssh://lab@box1:2222`. Stored with runs, shown in messages. */
  url: string;
  user: string | null;
  /** Host name, alias from ~/.ssh/config, or address (IPv6 without brackets). */
  host: string;
  port: number | null;
}

const USAGE = 'give it as ssh://[user@]host[:port], e.g. ssh://lab@box1 or ssh://root@10.0.0.5:2222';

/** Parse `ssh://[user@]host[:port]`; a UserError naming `flag` and the expected form otherwise. */
export function parseSshUrl(text: string, flag = '--target'): SshAddress {
  const bad = (why: string): never => {
    throw new UserError(`${flag} '${text}': ${why}; ${USAGE}`, 2);
  };
  if (!text.startsWith('ssh://')) bad('not an ssh:// address');
  const rest = text.slice('ssh://'.length).replace(/\/$/, '');
  const m = /^(?:([^@/:\s]+)@)?(\[[0-9A-Fa-f:.]+\]|[^@/:\s[\]]+)(?::(\d+))?$/.exec(rest);
  if (!m?.[2]) bad('expected [user@]host[:port] after ssh://, with no path');
  const host = m![2]!.replace(/^\[(.*)\]$/, '$1');
  if (host.startsWith('-')) bad('a host cannot start with -');
  if (m![1]?.startsWith('-')) bad('a user cannot start with -');
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
  const byHand = `ssh ${a.port !== null ? `-p ${a.port} ` : ''}${a.user !== null ? `${a.user}@` : ''}${a.host}`;
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for .* has changed/i.test(stderr)) {
    return new UserError(
      `cannot connect to ${a.url}: its host key changed since it was recorded in known_hosts (ssh: ${said}). ` +
        `If the box was reinstalled, remove the old key with 'ssh-keygen -R ${a.host}' and check the new fingerprint with '${byHand}'`,
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
        `on the box ('ssh-copy-id ${a.user !== null ? `${a.user}@` : ''}${a.host}'${a.port !== null ? ` -p ${a.port}` : ''}) and, ` +
        `if the key has a passphrase, load it into your agent ('ssh-add'); '${byHand} true' must work without a question`,
    );
  }
  if (/Could not resolve hostname|Name or service not known|Temporary failure in name resolution/i.test(stderr)) {
    return new UserError(`cannot reach ${a.url}: the host name does not resolve (ssh: ${said}); check the name, or add a Host entry for it in ~/.ssh/config`);
  }
  if (/Connection refused|No route to host|Network is unreachable|timed out|Connection closed|Connection reset|kex_exchange_identification/i.test(stderr)) {
    return new UserError(
      `cannot reach ${a.url} (ssh: ${said}): check that the box is up, that sshd listens on ${a.port ?? 'port 22 (or the Port of your ~/.ssh/config)'}, ` +
        `and that '${byHand} true' works from here`,
    );
  }
  return new UserError(`cannot connect to ${a.url}: ssh ${exit} (ssh: ${said}); '${byHand} true' shows the same problem`);
}

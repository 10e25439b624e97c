/**
 * The box's /proc and /sys as the environment recorder reads them
 * (src/environment/host.ts), fetched in one round trip: a small POSIX
 * shell script on the box prints every file the recorder reads, framed
 * with its status and length, and the answer becomes a SysReader over that
 * snapshot. `/proc/self/status` is read by the script's own `cat`, so the
 * allowed CPUs are those of a process the ssh session starts, as the
 * probe's will be.
 *
 * The list below must hold every path collectEnvironment reads; the test
 * against sshd on this machine checks that the record read over ssh equals
 * the one read from the files.
 */
import type { SysReader } from '../environment/reader.ts';
import type { SshConnection } from './ssh-connection.ts';

/** Files read on the box (shell words: globs expand there, `$(uname -r)` too). */
const FILES = [
  '/proc/sys/kernel/hostname',
  '/proc/sys/kernel/osrelease',
  '/proc/sys/kernel/version',
  '/proc/version',
  '/proc/cmdline',
  '/proc/cpuinfo',
  '/proc/self/status',
  '/proc/loadavg',
  '/proc/config.gz',
  '"/boot/config-$(uname -r)"',
  '/sys/kernel/debug/sched/preempt',
  '/sys/devices/system/cpu/online',
  '/sys/devices/system/cpu/isolated',
  '/sys/devices/system/cpu/nohz_full',
  '/sys/devices/system/cpu/smt/active',
  '/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor',
  '/sys/devices/system/cpu/intel_pstate/no_turbo',
  '/sys/devices/system/cpu/cpufreq/boost',
  '/sys/devices/system/cpu/vulnerabilities/*',
  '/sys/hypervisor/type',
  '/sys/class/dmi/id/sys_vendor',
];
/** Directories listed on the box. */
const DIRS = ['/sys/devices/system/cpu/vulnerabilities'];

/**
 * Few processes, since each costs on a loaded box: one `cat` (or `ls`) per
 * entry into a private directory, then one `wc -c` and one `cat` over all.
 * Prints an index line `ok|err f|d PATH` per entry (on err the entry's
 * data is what cat or ls said), `--sizes`, wc's lines in the same order,
 * `--data`, and the entries' bytes one after another.
 */
export const FETCH_SCRIPT = [
  'd=$(mktemp -d) || exit 1',
  'i=0; all=',
  'get() { i=$((i+1)); all="$all $d/$i"; if $1 "$2" > "$d/$i" 2>"$d/e$i"; then echo "ok $3 $2"; else cat "$d/e$i" > "$d/$i"; echo "err $3 $2"; fi; }',
  `for p in ${FILES.join(' ')}; do get cat "$p" f; done`,
  `for p in ${DIRS.join(' ')}; do get 'ls -1' "$p" d; done`,
  'echo --sizes; wc -c $all; echo --data; cat $all',
  'rm -rf "$d"',
].join('\n');

/** errno names for what cat and ls print, so reasons read as the local reader's (`path: ENOENT`). */
const ERRNO: [RegExp, string][] = [
  [/No such file or directory/, 'ENOENT'],
  [/Permission denied/, 'EACCES'],
  [/Operation not permitted/, 'EPERM'],
  [/Is a directory/, 'EISDIR'],
  [/Not a directory/, 'ENOTDIR'],
  [/Invalid argument/, 'EINVAL'],
  [/No such device/, 'ENODEV'],
  [/Input\/output error/, 'EIO'],
];

function reasonOf(path: string, said: string): string {
  const code = ERRNO.find(([re]) => re.test(said))?.[1];
  return `${path}: ${code ?? (said.trim() || 'unreadable')}`;
}

export interface Snapshot {
  files: Map<string, { ok: true; data: Buffer } | { ok: false; reason: string }>;
  dirs: Map<string, string[] | null>;
}

/** Parse the script's answer. */
export function parseSnapshot(out: Buffer): Snapshot {
  const snap: Snapshot = { files: new Map(), dirs: new Map() };
  const dataAt = out.indexOf('\n--data\n');
  if (dataAt < 0) throw new Error("the box's file listing has no data part");
  const [index = '', sizes = ''] = out.subarray(0, dataAt).toString('utf8').split('\n--sizes\n');
  const entries = index.split('\n').filter(Boolean).map((l) => /^(ok|err) ([fd]) (.*)$/.exec(l));
  const lengths = sizes.split('\n').map((l) => /^\s*(\d+) (?!total$)/.exec(l)?.[1]).filter((n) => n !== undefined).map(Number);
  if (entries.some((e) => !e) || lengths.length !== entries.length) throw new Error(`unexpected file listing from the box: ${index.slice(0, 200)}`);
  let at = dataAt + '\n--data\n'.length;
  entries.forEach((e, k) => {
    const [, status, kind, path] = e as RegExpExecArray;
    const data = out.subarray(at, at + lengths[k]!);
    if (data.length !== lengths[k]) throw new Error(`the box's file listing is cut off in ${path}`);
    at += data.length;
    if (kind === 'f') snap.files.set(path!, status === 'ok' ? { ok: true, data: Buffer.from(data) } : { ok: false, reason: reasonOf(path!, data.toString()) });
    else snap.dirs.set(path!, status === 'ok' ? data.toString().split('\n').filter(Boolean).sort() : null);
  });
  return snap;
}

/** The glob patterns of FILES as regular expressions (`*` within one path component, `[0-9]` as is). */
const GLOBS = FILES.filter((f) => /[*[]/.test(f)).map((f) => new RegExp(`^${f.replace(/[.+?^${}()|\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`));

/**
 * A SysReader over a snapshot. A path a glob covers but the box did not
 * list does not exist there (ENOENT, as the local reader says); any other
 * path not fetched reads as unreadable, saying so.
 */
export function snapshotReader(snap: Snapshot, url: string): SysReader {
  const missing = (path: string) => ({ ok: false as const, reason: GLOBS.some((g) => g.test(path)) ? `${path}: ENOENT` : `${path}: not fetched from ${url}` });
  return {
    read: (path) => snap.files.get(path) ?? missing(path),
    list: (path) => snap.dirs.get(path) ?? null,
    hostname() {
      const h = snap.files.get('/proc/sys/kernel/hostname');
      if (!h?.ok) throw new Error(h ? h.reason : `the hostname was not fetched from ${url}`);
      return h.data.toString('utf8').trim();
    },
  };
}

/** Read the box's environment files in one round trip. */
export async function fetchSnapshot(conn: SshConnection): Promise<Snapshot> {
  return parseSnapshot(await conn.check(FETCH_SCRIPT, 'reading /proc and /sys'));
}

/** Read /proc/loadavg again into `snap` (after a job: the load at the end of a run). */
export async function refreshLoad(conn: SshConnection, snap: Snapshot): Promise<void> {
  const r = await conn.exec('cat /proc/loadavg');
  snap.files.set('/proc/loadavg', r.code === 0 ? { ok: true, data: r.stdout } : { ok: false, reason: reasonOf('/proc/loadavg', r.stderr) });
}

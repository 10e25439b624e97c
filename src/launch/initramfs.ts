/**
 * The guest's initramfs, written by hintlab itself: a newc ("070701") cpio
 * archive, gzip-compressed with node:zlib. It holds the static probe as
 * /init, its arguments as /hintlab.args, a /proc mount point and the
 * /dev/console node the kernel opens as the init's stdin/stdout before any
 * devtmpfs exists. No host cpio tool is involved, and the image is
 * byte-for-byte reproducible (mtime 0, fixed inode numbers).
 */
import { gzipSync } from 'node:zlib';

/** One member of the archive. Paths are relative to the guest's root, without a leading slash. */
export type CpioEntry =
  | { kind: 'dir'; path: string; mode?: number }
  | { kind: 'file'; path: string; data: Buffer; mode?: number }
  | { kind: 'char'; path: string; major: number; minor: number; mode?: number };

const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const S_IFCHR = 0o020000;

function hex8(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}

/** Zero bytes that bring `length` up to the next multiple of 4 (newc alignment). */
function pad4(length: number): Buffer {
  return Buffer.alloc((4 - (length % 4)) % 4);
}

function member(ino: number, path: string, mode: number, data: Buffer, rdev: [number, number]): Buffer {
  const name = Buffer.from(`${path}\0`, 'utf8');
  const fields = [ino, mode, 0, 0, (mode & S_IFDIR) === S_IFDIR ? 2 : 1, 0, data.length, 0, 0, rdev[0], rdev[1], name.length, 0];
  const header = Buffer.from(`070701${fields.map(hex8).join('')}`, 'ascii');
  const head = Buffer.concat([header, name]);
  return Buffer.concat([head, pad4(head.length), data, pad4(data.length)]);
}

/** The uncompressed newc archive, members in the given order, closed by the TRAILER!!! entry. */
export function cpioNewc(entries: CpioEntry[]): Buffer {
  const parts = entries.map((e, i) => {
    const ino = i + 1;
    switch (e.kind) {
      case 'dir':
        return member(ino, e.path, S_IFDIR | (e.mode ?? 0o755), Buffer.alloc(0), [0, 0]);
      case 'file':
        return member(ino, e.path, S_IFREG | (e.mode ?? 0o644), e.data, [0, 0]);
      case 'char':
        return member(ino, e.path, S_IFCHR | (e.mode ?? 0o600), Buffer.alloc(0), [e.major, e.minor]);
    }
  });
  parts.push(member(0, 'TRAILER!!!', 0, Buffer.alloc(0), [0, 0]));
  return Buffer.concat(parts);
}

/**
 * The gzip'd initramfs that boots straight into the probe: `probeArgs` are
 * written one per line to /hintlab.args (the probe reads them as PID 1).
 * `extra` members (stress-ng and its libraries for `vm --macro`) follow.
 */
export function probeInitramfs(probeBinary: Buffer, probeArgs: string[], extra: CpioEntry[] = []): Buffer {
  for (const a of probeArgs) {
    if (a.includes('\n')) throw new Error(`probe argument contains a newline: ${JSON.stringify(a)}`);
  }
  const entries: CpioEntry[] = [
    { kind: 'dir', path: 'dev' },
    { kind: 'char', path: 'dev/console', major: 5, minor: 1 },
    { kind: 'dir', path: 'proc' },
    { kind: 'file', path: 'hintlab.args', data: Buffer.from(probeArgs.map((a) => `${a}\n`).join(''), 'utf8') },
    { kind: 'file', path: 'init', data: probeBinary, mode: 0o755 },
    ...extra,
  ];
  return gzipSync(cpioNewc(entries), { level: 6 });
}

/**
 * What an x86 kernel image says about itself, read from its boot header
 * (Documentation/arch/x86/boot.rst): every bzImage has "HdrS" at 0x202, and
 * from boot protocol 2.00 on, the 16-bit `kernel_version` field at 0x20e
 * points (plus 0x200) to the version string `uname -r` later reports first
 * ("6.1.0-57-cloud-amd64 (debian-kernel@...) #1 SMP ..."). That holds for
 * any image, a distribution's vmlinuz or one hintlab built, with no
 * manifest needed.
 */
import { closeSync, openSync, readSync } from 'node:fs';

function readAt(path: string, offset: number, length: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(length);
    const n = readSync(fd, buf, 0, length, offset);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** x86 boot protocol: "HdrS" at offset 0x202 of every bzImage. */
export function isBzImage(path: string): boolean {
  return readAt(path, 0x202, 4).toString('latin1') === 'HdrS';
}

/**
 * The image's version string, `<release> (<builder>) <version>`: what
 * `uname -r` and `uname -v` of the booted kernel will say. Null when the
 * image is no bzImage, predates protocol 2.00, or has no version string.
 */
export function kernelIdentity(path: string): { release: string; version: string } | null {
  const head = readAt(path, 0x200, 0x12);
  if (head.length < 0x12 || head.toString('latin1', 2, 6) !== 'HdrS' || head.readUInt16LE(6) < 0x200) return null;
  const pointer = head.readUInt16LE(0x0e);
  if (pointer === 0) return null;
  const raw = readAt(path, pointer + 0x200, 512).toString('latin1');
  const text = raw.slice(0, raw.indexOf('\0') < 0 ? raw.length : raw.indexOf('\0'));
  const release = text.split(' ')[0] ?? '';
  if (!/^[0-9][\x21-\x7e]*$/.test(release)) return null;
  // UTS_VERSION follows the builder in parentheses: "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-26)"
  const version = /^\S+ \([^)]*\) (.*)$/.exec(text)?.[1] ?? '';
  return { release, version };
}

/** The kernel release (`uname -r`) an image will report, or null (see kernelIdentity). */
export function kernelRelease(path: string): string | null {
  return kernelIdentity(path)?.release ?? null;
}

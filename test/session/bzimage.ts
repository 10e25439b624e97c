/** Small files with an x86 boot header (Documentation/arch/x86/boot.rst) for tests that need a kernel image, not a kernel. */
import { writeFileSync } from 'node:fs';

/**
 * Write a file that reads as a bzImage of boot protocol 2.15 whose header
 * names `release` and `version` (`uname -r`, `uname -v`) the way a real
 * one does: the kernel_version field at 0x20e points (+0x200) at the text.
 */
export function writeFakeBzImage(path: string, release: string, version: string): string {
  const image = Buffer.alloc(0x1000);
  image.write('HdrS', 0x202, 'latin1');
  image.writeUInt16LE(0x020f, 0x206);
  const textAt = 0x400;
  image.writeUInt16LE(textAt - 0x200, 0x20e);
  image.write(`${release} (builder@host) ${version}\0`, textAt, 'latin1');
  writeFileSync(path, image);
  return path;
}

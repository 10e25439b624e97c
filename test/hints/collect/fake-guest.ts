/**
 * A scripted guest for the transfer tests: the lines a coverage boot prints
 * (hello, done, file/chunk/files, poweroff), framed and checksummed as
 * docs/probe-protocol.md says, written independently of the probe's C code.
 */
import { crc32 } from 'node:zlib';
import { frameLine } from '../../../src/launch/probe-protocol.ts';

const pct = (s: string): string => s.replace(/[\s%#=]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);

export function fakeGuestStream(files: { path: string; data: Buffer }[], chunkBytes = 512): string[] {
  const lines = [
    'Linux version 6.12.57',
    frameLine('@hl1 hello proto=1 kernel=6.12.57 version=%231 machine=x86_64 pid1=1 cpu=0 ops=100 warmups=0 rounds=1 seccomp=0'),
    frameLine('@hl1 done rounds=1 profiles=0'),
  ];
  files.forEach((f, id) => {
    const crc = (crc32(f.data) >>> 0).toString(16).padStart(8, '0');
    lines.push(frameLine(`@hl1 file id=${id} path=${pct(f.path)} size=${f.data.length} crc=${crc}`));
    for (let off = 0; off < f.data.length; off += chunkBytes) {
      lines.push(frameLine(`@hl1 chunk id=${id} off=${off} data=${f.data.subarray(off, off + chunkBytes).toString('base64')}`));
    }
  });
  const bytes = files.reduce((n, f) => n + f.data.length, 0);
  lines.push(frameLine(`@hl1 files count=${files.length} bytes=${bytes}`), frameLine('@hl1 poweroff status=0'));
  return lines;
}

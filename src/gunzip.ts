/**
 * gzip data decompressed with a cap on what it expands to, so a small file
 * that inflates to gigabytes (a gzip bomb, or a damaged file) is refused
 * with a message instead of growing the process by as much: zlib stops as
 * soon as its output passes the cap, and never holds more than that.
 */
import { gunzipSync } from 'node:zlib';
import { UserError } from './errors.ts';

/** The largest kernel configuration decompressed: a full x86 .config is about 300 KB. */
export const MAX_CONFIG_BYTES = 64 * 2 ** 20;

/** `bytes` as MiB for a message: "256 MiB". */
export function mib(bytes: number): string {
  return `${Math.round(bytes / 2 ** 20)} MiB`;
}

/**
 * Decompress `data`, read from `name` (a file, named in messages), refusing
 * output larger than `capBytes`; `fix` says what to do about damaged data.
 */
export function gunzipCapped(data: Buffer, capBytes: number, name: string, fix: string): Buffer {
  try {
    return gunzipSync(data, { maxOutputLength: capBytes });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) {
      throw new UserError(`${name}: decompresses to more than ${mib(capBytes)}, the cap for such a file; it is not what hintlab expects there (a damaged file, or a gzip bomb); ${fix}`);
    }
    throw new UserError(`${name}: corrupt or truncated gzip data (${e.message}); ${fix}`);
  }
}

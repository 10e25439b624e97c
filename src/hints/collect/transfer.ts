/**
 * Reassembling the .gcda files a guest sends with `--dump-gcov`
 * (docs/probe-protocol.md: `file`, `chunk`, `files` lines). Pure: events in,
 * whole files or one precise reason out.
 *
 * Invariant: a file is handed out only when every byte arrived in order,
 * its length equals the announced size and its CRC-32 the announced one, and
 * the closing `files` line counted the same files and bytes. A gap, a
 * duplicate or a mismatch rejects the whole transfer: a partial profile
 * would make branches look colder than they ran.
 */
import { crc32 } from 'node:zlib';
import type { CoverageEvent } from '../../launch/probe-protocol.ts';

/** One .gcda file as the guest read it. */
export interface ReceivedFile {
  /** The path in the guest, e.g. /sys/kernel/debug/gcov/<build dir>/kernel/sched/core.gcda. */
  guestPath: string;
  data: Buffer;
}

export type TransferOutcome =
  | { state: 'complete'; files: ReceivedFile[]; bytes: number }
  | { state: 'failed'; reason: string };

interface Pending {
  id: number;
  path: string;
  size: number;
  crc: string;
  parts: Buffer[];
  received: number;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** CRC-32 as the probe prints it: 8 lower-case hex digits. */
export function crc32Hex(data: Buffer): string {
  return (crc32(data) >>> 0).toString(16).padStart(8, '0');
}

export class GcdaReceiver {
  private readonly files: ReceivedFile[] = [];
  private current: Pending | null = null;
  private failure: string | null = null;
  private closing: { count: number; bytes: number } | null = null;

  /** Feed one transfer event, in the order the guest sent them. */
  feed(e: Extract<CoverageEvent, { type: 'file' | 'chunk' | 'files' }>): void {
    if (this.failure) return;
    if (this.closing) { this.fail(`a '${e.type}' line came after the closing 'files' line`); return; }
    if (e.type === 'file') { this.startFile(e); return; }
    if (e.type === 'chunk') { this.addChunk(e); return; }
    if (this.finishCurrent()) this.closing = { count: e.count, bytes: e.bytes };
  }

  /** Whether the guest has sent anything of a dump (files or the closing line). */
  get started(): boolean {
    return this.files.length > 0 || this.current !== null || this.closing !== null || this.failure !== null;
  }

  /** The files, once the closing line arrived and every check passed. */
  outcome(): TransferOutcome {
    if (this.failure) return { state: 'failed', reason: this.failure };
    if (!this.closing) {
      const where = this.current
        ? `in the middle of ${this.current.path} (${this.current.received} of ${this.current.size} bytes)`
        : `after ${this.files.length} whole file(s)`;
      return { state: 'failed', reason: `the .gcda transfer ended ${where} without its closing 'files' line` };
    }
    const bytes = this.files.reduce((n, f) => n + f.data.length, 0);
    if (this.closing.count !== this.files.length || this.closing.bytes !== bytes) {
      return {
        state: 'failed',
        reason: `the guest sent ${this.closing.count} files of ${this.closing.bytes} bytes in all, but ${this.files.length} files of ${bytes} bytes arrived whole (a 'file' line was lost)`,
      };
    }
    return { state: 'complete', files: this.files, bytes };
  }

  private fail(reason: string): void {
    this.failure = reason;
  }

  private startFile(e: Extract<CoverageEvent, { type: 'file' }>): void {
    if (!this.finishCurrent()) return;
    if (e.id !== this.files.length) {
      this.fail(`file ${e.path} arrived as number ${e.id}, expected number ${this.files.length} (a 'file' line was lost)`); return;
    }
    if (!Number.isSafeInteger(e.size) || e.size < 0 || !/^[0-9a-f]{8}$/.test(e.crc)) {
      this.fail(`file ${e.path}: bad size '${e.size}' or crc '${e.crc}' on its 'file' line`); return;
    }
    this.current = { id: e.id, path: e.path, size: e.size, crc: e.crc, parts: [], received: 0 };
  }

  private addChunk(e: Extract<CoverageEvent, { type: 'chunk' }>): void {
    const cur = this.current;
    if (!cur || e.id !== cur.id) {
      this.fail(`a chunk of file number ${e.id} at offset ${e.off} arrived ${cur ? `while ${cur.path} (number ${cur.id}) was being sent` : 'before its file line'} (a 'file' line was lost)`); return;
    }
    if (e.off !== cur.received) {
      const what = e.off > cur.received ? `bytes ${cur.received}-${e.off - 1} are missing` : `offset ${e.off} arrived twice`;
      this.fail(`${cur.path}: ${what} (a corrupt or lost chunk line)`); return;
    }
    if (!BASE64.test(e.data) || e.data.length % 4 !== 0) { this.fail(`${cur.path}: the chunk at offset ${e.off} is not base64`); return; }
    const bytes = Buffer.from(e.data, 'base64');
    if (cur.received + bytes.length > cur.size) { this.fail(`${cur.path}: more bytes than the announced ${cur.size}`); return; }
    cur.parts.push(bytes);
    cur.received += bytes.length;
  }

  /** Close the file being received; false (and failed) when it is short or its checksum differs. */
  private finishCurrent(): boolean {
    const cur = this.current;
    if (!cur) return true;
    this.current = null;
    if (cur.received !== cur.size) {
      this.fail(`${cur.path}: ${cur.received} of ${cur.size} bytes arrived; bytes ${cur.received}-${cur.size - 1} are missing (a corrupt or lost chunk line)`);
      return false;
    }
    const data = Buffer.concat(cur.parts);
    const crc = crc32Hex(data);
    if (crc !== cur.crc) {
      this.fail(`${cur.path}: the reassembled file's CRC-32 is ${crc}, the guest read ${cur.crc}`);
      return false;
    }
    this.files.push({ guestPath: cur.path, data });
    return true;
  }
}

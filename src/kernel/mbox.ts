/**
 * A patch series in one file: an mbox as `git format-patch --stdout` or
 * `b4 am` writes it, one mail per patch, each opening with an mbox
 * `From ` line (`From 1a2b... Mon Sep 17 00:00:00 2001`). Each message is
 * split off with its subject and author; a cover letter (`[PATCH 0/N]`)
 * is left out, and a message that carries no diff is an error naming it.
 *
 * What patch(1) then gets is each message's diff alone (from its first
 * `diff --git` or `--- ` file header to the end, git's `-- ` signature
 * taken off), so the patches of a series apply one after the other, the
 * same file touched twice included.
 */
import { UserError } from '../errors.ts';

/** One patch of a series. */
export interface MboxPatch {
  /** 1-based position among the file's messages (a skipped cover letter counted). */
  message: number;
  /** The subject without its `[PATCH v2 3/7]` tag. */
  subject: string;
  /** The `From:` header, null when the message has none. */
  author: string | null;
  /** The diff, ready for `patch -p1`. */
  diff: string;
}

/** The separator line of an mbox: `From `, an address or a hash, then a date with its weekday. */
const FROM_LINE = /^From \S+ +(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) /;
const COVER = /^\[[^\]]*\b0+\/\d+\]/;
const TAG = /^(?:\[[^\]]*\]\s*)+/;

/** Whether `text` is an mbox (its first line is an mbox `From ` line), not a plain diff. */
export function isMbox(text: string): boolean {
  return FROM_LINE.test(text.slice(0, text.indexOf('\n') >>> 0));
}

/** RFC 2047 encoded words (`=?UTF-8?q?...?=`, `=?utf-8?B?...?=`), as git writes a subject or name outside ASCII. */
function decodeWords(text: string): string {
  return text.replace(/=\?([^?]+)\?([qQbB])\?([^?]*)\?=\s*(?==\?)?/g, (_all, _charset: string, enc: string, data: string) => {
    const bytes =
      enc.toLowerCase() === 'b'
        ? Buffer.from(data, 'base64')
        : Buffer.from(data.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
    return bytes.toString('utf8');
  });
}

/** Headers of one message (folded lines joined), and where its body starts. */
function headers(lines: readonly string[]): { fields: Map<string, string>; body: number } {
  const fields = new Map<string, string>();
  let last: string | null = null;
  let i = 1;
  for (; i < lines.length && lines[i] !== ''; i++) {
    const line = lines[i]!;
    if (/^\s/.test(line) && last !== null) {
      fields.set(last, `${fields.get(last)!} ${line.trim()}`);
      continue;
    }
    const m = /^([\w-]+):\s*(.*)$/.exec(line);
    if (!m) break;
    last = m[1]!.toLowerCase();
    fields.set(last, m[2]!);
  }
  return { fields, body: i + 1 };
}

/** The diff of a message body: from its first file header, without git's trailing `-- ` signature. */
function diffOf(body: readonly string[]): string | null {
  const start = body.findIndex((l, i) => l.startsWith('diff --git ') || (l.startsWith('--- ') && body[i + 1]?.startsWith('+++ ') === true));
  if (start < 0) return null;
  let end = body.length;
  const sig = body.lastIndexOf('-- ');
  if (sig > start) end = sig;
  while (end > start && body[end - 1] === '') end--;
  return `${body.slice(start, end).join('\n')}\n`;
}

/**
 * The patches of an mbox series in order; `source` names the file in errors
 * (`--patch series.mbox: message 3 ("docs: typo") is not a patch ...`).
 */
export function splitMbox(text: string, source: string): MboxPatch[] {
  const lines = text.split('\n');
  const starts = lines.flatMap((l, i) => (FROM_LINE.test(l) ? [i] : []));
  const patches: MboxPatch[] = [];
  starts.forEach((start, n) => {
    const message = lines.slice(start, starts[n + 1] ?? lines.length);
    const { fields, body } = headers(message);
    const raw = decodeWords(fields.get('subject') ?? '').trim();
    const subject = raw.replace(TAG, '').trim();
    const diff = diffOf(message.slice(body));
    if (COVER.test(raw)) return;
    if (diff === null) {
      throw new UserError(`${source}: message ${n + 1} ("${raw || 'no subject'}") is not a patch: it has no diff ('diff --git' or '---'/'+++' lines); take it out of the series, or give the patches as separate --patch files`, 2);
    }
    const from = fields.get('from');
    patches.push({ message: n + 1, subject: subject || `message ${n + 1}`, author: from ? decodeWords(from).trim() : null, diff });
  });
  if (patches.length === 0) throw new UserError(`${source}: an mbox with no patch in it (only a cover letter, or no messages); give the series' patch messages`, 2);
  return patches;
}

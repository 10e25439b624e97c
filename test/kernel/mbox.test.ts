/**
 * Splitting an mbox series as git format-patch writes it: subjects without
 * their [PATCH n/m] tag (RFC 2047 words decoded), authors, the cover
 * letter left out, each diff alone without git's signature, and a message
 * with no diff refused naming the file, the message and its subject.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UserError } from '../../src/errors.ts';
import { isMbox, splitMbox } from '../../src/kernel/mbox.ts';

const message = (n: number, subject: string, body: string) =>
  `From 1234567890abcdef1234567890abcdef1234567${n} Mon Sep 17 00:00:00 2001\nFrom: Ada Dev <ada@example.org>\nDate: Thu, 1 Jan 2026 00:00:00 +0000\nSubject: ${subject}\n\n${body}`;

const DIFF = (from: string, to: string) => `diff --git a/k.c b/k.c\nindex 1111111..2222222 100644\n--- a/k.c\n+++ b/k.c\n@@ -1 +1 @@\n-${from}\n+${to}\n`;

const SERIES = [
  message(0, '[PATCH 0/2] two steps', 'The cover.\n\nAda Dev (2):\n  one\n  two\n\n k.c | 2 +-\n\n-- \n2.39.5\n\n'),
  message(1, '[PATCH 1/2] sched: step\n one', 'Why one.\n\nSigned-off-by: Ada Dev <ada@example.org>\n---\n k.c | 2 +-\n\n' + DIFF('a', 'b') + '-- \n2.39.5\n\n'),
  message(2, '=?UTF-8?q?[PATCH=202/2]=20sched:=20caf=C3=A9?=', 'Why two.\n---\n' + DIFF('b', 'c') + '-- \n2.39.5\n'),
].join('');

test('a format-patch series splits into its patches in order, the cover letter left out and each subject untagged', () => {
  assert.equal(isMbox(SERIES), true);
  assert.equal(isMbox(DIFF('a', 'b')), false);
  const patches = splitMbox(SERIES, '--patch s.mbox');
  assert.deepEqual(patches.map((p) => [p.message, p.subject, p.author]), [
    [2, 'sched: step one', 'Ada Dev <ada@example.org>'],
    [3, 'sched: café', 'Ada Dev <ada@example.org>'],
  ]);
  assert.equal(patches[0]!.diff, DIFF('a', 'b'), 'the diff alone: no message, no diffstat, no signature');
  assert.equal(patches[1]!.diff, DIFF('b', 'c'));
});

test('a message without a diff is refused naming the file, the message and its subject', () => {
  const bad = SERIES + message(3, '[PATCH 3/2] a note', 'no diff\n');
  assert.throws(() => splitMbox(bad, '--patch s.mbox'), (e: unknown) => e instanceof UserError && e.exitCode === 2 && e.message.startsWith('--patch s.mbox: message 4 ("[PATCH 3/2] a note") is not a patch'));
  assert.throws(() => splitMbox(message(0, '[PATCH 0/1] cover only', 'x\n'), '--patch c.mbox'), /--patch c\.mbox: an mbox with no patch in it/);
});

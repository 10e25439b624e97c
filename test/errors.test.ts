/** Input quoted in messages: control characters written as escapes, never raw. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstUnprintable, printable, printableMessage } from '../src/errors.ts';

test('printable writes NUL, ESC, BEL, newline, C1 CSI, a line separator and a bidi override as escapes', () => {
  assert.equal(printable('a\0b\x1b[31m\x07c\nd\u009be\u2028f\u202eg'), 'a\\x00b\\x1b[31m\\x07c\\x0ad\\x9be\\u2028f\\u202eg');
  assert.equal(printable('plain é ü 中 ok'), 'plain é ü 中 ok');
});

test('a whole message keeps its own line breaks but not an escape sequence', () => {
  assert.equal(printableMessage('one\ntwo \x1b]0;t\x07'), 'one\ntwo \\x1b]0;t\\x07');
});

test('the first unprintable character is named by code point and 1-based column', () => {
  assert.equal(firstUnprintable('getppid\0x'), 'U+0000 at column 8');
  assert.equal(firstUnprintable('\x1b]0;'), 'U+001B at column 1');
  assert.equal(firstUnprintable('fine'), null);
});

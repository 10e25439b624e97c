/** How durations and sizes are written, against values worked out by hand. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatDuration, formatKiB, formatRoughDuration, formatSeconds, formatSecondsOfMs } from '../../src/format/durations.ts';
import { roundTo, scientific, significant } from '../../src/format/numbers.ts';

test('seconds carry their unit and the decimals asked for; milliseconds read as seconds with one decimal', () => {
  assert.equal(formatSeconds(257.4, 0), '257 s');
  assert.equal(formatSeconds(7.04, 1), '7.0 s');
  assert.equal(formatSecondsOfMs(23456), '23.5 s');
  assert.equal(formatSecondsOfMs(0), '0.0 s');
});

test('a plan length reads as a clock: hours and minutes, minutes and seconds, or seconds', () => {
  assert.equal(formatDuration(7), '7s');
  assert.equal(formatDuration(125), '2m05s');
  assert.equal(formatDuration(3720), '1h02m');
  assert.equal(formatDuration(-3), '0s');
});

test('an estimate takes the largest unit that keeps it readable, and scientific notation past ten thousand years', () => {
  assert.equal(formatRoughDuration(90), '90 s');
  assert.equal(formatRoughDuration(2700), '45 min');
  assert.equal(formatRoughDuration(3 * 3600), '3 h');
  assert.equal(formatRoughDuration(12 * 86400), '12 days');
  assert.equal(formatRoughDuration(29 * 365 * 86400), '29 years');
  assert.equal(formatRoughDuration(1.2e5 * 365 * 86400), '1.2e+5 years');
});

test('bytes read as whole KiB', () => {
  assert.equal(formatKiB(4_915_712), '4801 KiB');
  assert.equal(formatKiB(512), '1 KiB');
});

test('significant digits, scientific notation and rounding to places give the figures asked for', () => {
  assert.equal(significant(0.000412, 2), '0.00041');
  assert.equal(scientific(123456, 1), '1.2e+5');
  assert.equal(roundTo(0.1 + 0.2, 2), 0.3);
  assert.equal(String(roundTo(42.5, 2)), '42.5');
});

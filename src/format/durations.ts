/**
 * How a duration or a size is written: seconds with their unit, a clock
 * style for plans (`2m05s`), a rough one for estimates far in the future
 * (`3 h`, `12 days`), and bytes in KiB. Bottom floor, like numbers.ts.
 */
import { fixed, scientific } from './numbers.ts';

/** Seconds with fixed decimals and their unit: `7.0 s`, `257 s`. */
export function formatSeconds(seconds: number, decimals: number): string {
  return `${fixed(seconds, decimals)} s`;
}

/** Milliseconds written as seconds with one decimal: 23456 -> `23.5 s`. */
export function formatSecondsOfMs(ms: number): string {
  return formatSeconds(ms / 1000, 1);
}

/** `1h02m`, `2m05s`, `7s`: a plan's length, rounded to the second. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m${String(sec).padStart(2, '0')}s`;
  return `${sec}s`;
}

/** An estimate in the largest unit that keeps it readable: `90 s`, `45 min`, `3 h`, `12 days`, `40 years`, `1.2e+5 years`. */
export function formatRoughDuration(seconds: number): string {
  if (seconds < 120) return `${fixed(seconds, 0)} s`;
  if (seconds < 7200) return `${fixed(seconds / 60, 0)} min`;
  if (seconds < 2 * 86400) return `${fixed(seconds / 3600, 0)} h`;
  if (seconds < 2 * 365 * 86400) return `${fixed(seconds / 86400, 0)} days`;
  const years = seconds / (365 * 86400);
  return years < 1e4 ? `${fixed(years, 0)} years` : `${scientific(years, 1)} years`;
}

/** Bytes as whole KiB: 20480 -> `20 KiB`. */
export function formatKiB(bytes: number): string {
  return `${fixed(bytes / 1024, 0)} KiB`;
}

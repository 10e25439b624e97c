/**
 * SVG plots for the HTML report, as pure functions returning markup.
 *
 * Every plot reads without colour: runs differ by marker shape (A circle,
 * B triangle, A2 square) as well as by colour (Okabe-Ito palette, safe for
 * the common colour-vision deficiencies), and each plot carries a legend and
 * a <title> for screen readers. Plots draw values they are given; they
 * never compute statistics.
 */
import type { RunRole } from '../compare/types.ts';
import { escapeXml } from './markup.ts';
import { fixed, roundTo } from '../format/numbers.ts';

const RUN_STYLE: Record<RunRole, { colour: string; marker: MarkerShape; label: string }> = {
  A: { colour: '#0072B2', marker: 'circle', label: 'A (baseline)' },
  B: { colour: '#D55E00', marker: 'triangle', label: 'B (candidate)' },
  A2: { colour: '#009E73', marker: 'square', label: 'A2 (baseline again)' },
};

type MarkerShape = 'circle' | 'triangle' | 'square' | 'diamond';

/** Plot frame: outer size and the margins around the data area. */
interface Frame {
  width: number;
  height: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** A linear map from data to pixels. */
interface Scale {
  (v: number): number;
  domain: [number, number];
}

function linearScale(domain: [number, number], range: [number, number]): Scale {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  const span = d1 - d0 || 1;
  const f = ((v: number) => r0 + ((v - d0) / span) * (r1 - r0)) as Scale;
  f.domain = domain;
  return f;
}

/**
 * About `count` round tick values covering [lo, hi] (steps of 1, 2 or 5
 * times a power of ten), and the domain widened to the outer ticks.
 */
export function niceTicks(lo: number, hi: number, count = 5): { ticks: number[]; domain: [number, number] } {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return { ticks: [0, 1], domain: [0, 1] };
  if (hi < lo) [lo, hi] = [hi, lo];
  if (hi === lo) {
    const pad = Math.abs(lo) * 0.01 || 1;
    lo -= pad;
    hi += pad;
  }
  const raw = (hi - lo) / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power);
  const start = Math.floor(lo / step) * step;
  const end = Math.ceil(hi / step) * step;
  const ticks: number[] = [];
  for (let v = start; v <= end + step / 2; v += step) ticks.push(roundToStep(v, step));
  return { ticks, domain: [start, end] };
}

/** `v` rounded to the decimals of `step`, so float steps never show as 0.30000000000000004. */
function roundToStep(v: number, step: number): number {
  const decimals = Math.max(0, -Math.floor(Math.log10(step)));
  return roundTo(v, decimals);
}

/** Tick label: enough decimals to tell neighbouring ticks apart, no more. */
function tickLabel(v: number, ticks: number[]): string {
  const step = ticks.length > 1 ? Math.abs((ticks[1] as number) - (ticks[0] as number)) : 1;
  const decimals = Math.max(0, -Math.floor(Math.log10(step)));
  return fixed(v, Math.min(decimals, 6));
}

/** One marker of the given shape centred on (x, y). */
function marker(shape: MarkerShape, x: number, y: number, r: number, colour: string, filled = true): string {
  const paint = filled ? `fill="${colour}" stroke="${colour}"` : `fill="#fff" stroke="${colour}" stroke-width="1.5"`;
  switch (shape) {
    case 'circle':
      return `<circle cx="${f(x)}" cy="${f(y)}" r="${f(r)}" ${paint}/>`;
    case 'square':
      return `<rect x="${f(x - r)}" y="${f(y - r)}" width="${f(2 * r)}" height="${f(2 * r)}" ${paint}/>`;
    case 'triangle':
      return `<path d="M${f(x)},${f(y - r * 1.2)}L${f(x + r * 1.1)},${f(y + r * 0.8)}L${f(x - r * 1.1)},${f(y + r * 0.8)}Z" ${paint}/>`;
    case 'diamond':
      return `<path d="M${f(x)},${f(y - r * 1.3)}L${f(x + r * 1.1)},${f(y)}L${f(x)},${f(y + r * 1.3)}L${f(x - r * 1.1)},${f(y)}Z" ${paint}/>`;
  }
}

/** Pixel coordinates with one decimal: small files, no visible rounding. */
function f(v: number): string {
  return (Math.round(v * 10) / 10).toString();
}

function text(x: number, y: number, content: string, attrs = ''): string {
  return `<text x="${f(x)}" y="${f(y)}"${attrs ? ` ${attrs}` : ''}>${escapeXml(content)}</text>`;
}

function openSvg(kind: string, frame: Frame, title: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="plot" data-plot="${kind}" role="img" ` +
    `viewBox="0 0 ${frame.width} ${frame.height}" width="${frame.width}" height="${frame.height}" ` +
    `font-family="sans-serif" font-size="11">` +
    `<title>${escapeXml(title)}</title>`
  );
}

/** Horizontal grid lines and labels for a y axis, plus its title. */
function yAxis(frame: Frame, y: Scale, ticks: number[], label: string): string {
  const parts = ticks.map(
    (t) =>
      `<line x1="${frame.left}" x2="${frame.width - frame.right}" y1="${f(y(t))}" y2="${f(y(t))}" stroke="#ddd"/>` +
      text(frame.left - 4, y(t) + 3.5, tickLabel(t, ticks), 'text-anchor="end"'),
  );
  const midY = (frame.top + frame.height - frame.bottom) / 2;
  parts.push(text(12, midY, label, `text-anchor="middle" transform="rotate(-90 12 ${f(midY)})"`));
  return parts.join('');
}

/** A legend row of run markers at the top right of a plot. */
function runLegend(frame: Frame, runs: RunRole[]): string {
  let x = frame.width - frame.right;
  const items: string[] = [];
  for (const role of [...runs].reverse()) {
    const style = RUN_STYLE[role];
    const w = style.label.length * 6 + 18;
    x -= w;
    items.push(marker(style.marker, x + 5, frame.top - 10, 4, style.colour) + text(x + 13, frame.top - 6.5, style.label));
  }
  return `<g class="legend">${items.join('')}</g>`;
}

/** Values of one run, in the order they were measured. */
export interface RunSeries {
  run: RunRole;
  values: number[];
}

/**
 * Each round's value in measurement order, runs one after another (A, B,
 * A2), so drift within and between runs is visible. Dashed lines separate
 * the runs.
 */
export function roundsPlot(p: { title: string; unit: string; series: RunSeries[] }): string {
  const frame: Frame = { width: 640, height: 260, left: 64, right: 12, top: 30, bottom: 36 };
  const all = p.series.flatMap((s) => s.values);
  const total = all.length;
  const yt = niceTicks(Math.min(...all), Math.max(...all));
  const y = linearScale(yt.domain, [frame.height - frame.bottom, frame.top]);
  const x = linearScale([0.5, Math.max(1, total) + 0.5], [frame.left, frame.width - frame.right]);
  const parts = [openSvg('rounds', frame, p.title), yAxis(frame, y, yt.ticks, p.unit)];
  let offset = 0;
  for (const s of p.series) {
    const style = RUN_STYLE[s.run];
    if (offset > 0) {
      const bx = x(offset + 0.5);
      parts.push(`<line x1="${f(bx)}" x2="${f(bx)}" y1="${frame.top}" y2="${frame.height - frame.bottom}" stroke="#888" stroke-dasharray="4 3"/>`);
    }
    const g = s.values.map((v, i) => marker(style.marker, x(offset + i + 1), y(v), 3.5, style.colour));
    parts.push(`<g class="series" data-run="${s.run}">${g.join('')}</g>`);
    parts.push(text(x(offset + s.values.length / 2 + 0.5), frame.height - frame.bottom + 14, s.run, 'text-anchor="middle" font-weight="bold"'));
    offset += s.values.length;
  }
  parts.push(text((frame.left + frame.width - frame.right) / 2, frame.height - 6, 'round, in measurement order', 'text-anchor="middle"'));
  parts.push(runLegend(frame, p.series.map((s) => s.run)));
  parts.push('</svg>');
  return parts.join('');
}

/**
 * A paired design's pairs: B/A of each pair in measurement order, so a
 * drift (a slope), a step or an outlier pair shows where it happened. The
 * line at 1 is no change, the grey band the noise threshold around it, the
 * dashed line the geometric mean of the ratios (the change the verdict used).
 */
export function pairRatiosPlot(p: { title: string; ratios: number[]; meanRatio: number; thresholdPct: number }): string {
  const frame: Frame = { width: 640, height: 260, left: 64, right: 12, top: 30, bottom: 36 };
  const band: [number, number] = [1 - p.thresholdPct / 100, 1 + p.thresholdPct / 100];
  const yt = niceTicks(Math.min(band[0], ...p.ratios), Math.max(band[1], ...p.ratios));
  const y = linearScale(yt.domain, [frame.height - frame.bottom, frame.top]);
  const x = linearScale([0.5, Math.max(1, p.ratios.length) + 0.5], [frame.left, frame.width - frame.right]);
  const [x0, x1] = [frame.left, frame.width - frame.right];
  const hline = (v: number, attrs: string) => `<line x1="${x0}" x2="${x1}" y1="${f(y(v))}" y2="${f(y(v))}" ${attrs}/>`;
  const style = RUN_STYLE.B;
  const path = p.ratios.map((r, i) => `${i === 0 ? 'M' : 'L'}${f(x(i + 1))},${f(y(r))}`).join('');
  const parts = [
    openSvg('pairs', frame, p.title),
    `<rect class="threshold-band" x="${x0}" y="${f(y(band[1]))}" width="${x1 - x0}" height="${f(y(band[0]) - y(band[1]))}" fill="#e8e8e8" stroke="#bbb" stroke-dasharray="3 2"/>`,
    yAxis(frame, y, yt.ticks, 'B/A of the pair'),
    hline(1, 'class="no-change" stroke="#555"'),
    hline(p.meanRatio, 'class="mean" stroke="#222" stroke-width="1.5" stroke-dasharray="6 3"'),
    `<path d="${path}" fill="none" stroke="${style.colour}" stroke-opacity="0.35"/>`,
    `<g class="series" data-run="B/A">${p.ratios.map((r, i) => marker('circle', x(i + 1), y(r), 3, style.colour)).join('')}</g>`,
    text((x0 + x1) / 2, frame.height - 6, `pair, in measurement order (1 to ${p.ratios.length})`, 'text-anchor="middle"'),
    `<g class="legend">` +
      `<rect x="${x0}" y="${frame.top - 18}" width="14" height="10" fill="#e8e8e8" stroke="#bbb" stroke-dasharray="3 2"/>` +
      text(x0 + 18, frame.top - 9, `noise threshold ±${p.thresholdPct} %`) +
      `<line x1="${x0 + 170}" x2="${x0 + 190}" y1="${frame.top - 13}" y2="${frame.top - 13}" stroke="#222" stroke-width="1.5" stroke-dasharray="6 3"/>` +
      text(x0 + 195, frame.top - 9, 'geometric mean of the pairs') +
      marker('circle', x0 + 370, frame.top - 13, 3, style.colour) +
      text(x0 + 378, frame.top - 9, 'one pair: B block / A block') +
      `</g>`,
    '</svg>',
  ];
  return parts.join('');
}

/** One run's values of one subject with its summary (computed elsewhere). */
export interface DistributionGroup {
  run: RunRole;
  values: number[];
  mean: number;
  ciLow: number;
  ciHigh: number;
  median: number;
}

/**
 * The distribution of one subject's rounds per run: every round as a
 * jittered point, the median as a bar and the mean with its confidence
 * interval as a whisker beside the points.
 */
export function distributionPlot(p: { title: string; unit: string; groups: DistributionGroup[] }): string {
  const frame: Frame = { width: 320, height: 260, left: 64, right: 12, top: 30, bottom: 36 };
  const all = p.groups.flatMap((g) => [...g.values, g.ciLow, g.ciHigh]);
  const yt = niceTicks(Math.min(...all), Math.max(...all));
  const y = linearScale(yt.domain, [frame.height - frame.bottom, frame.top]);
  const band = (frame.width - frame.left - frame.right) / Math.max(1, p.groups.length);
  const parts = [openSvg('distribution', frame, p.title), yAxis(frame, y, yt.ticks, p.unit)];
  p.groups.forEach((g, gi) => {
    const style = RUN_STYLE[g.run];
    const cx = frame.left + band * (gi + 0.5);
    const half = Math.min(28, band * 0.3);
    // Deterministic jitter (golden-ratio sequence): the same report twice is byte-identical.
    const pts = g.values.map((v, i) => marker(style.marker, cx - half / 2 + (((i * 0.618034) % 1) - 0.5) * half, y(v), 3, style.colour, false));
    const wx = cx + half * 0.9;
    parts.push(
      `<g class="series" data-run="${g.run}">${pts.join('')}` +
        `<line x1="${f(cx - half)}" x2="${f(cx + half * 0.3)}" y1="${f(y(g.median))}" y2="${f(y(g.median))}" stroke="#222" stroke-width="2"/>` +
        `<line x1="${f(wx)}" x2="${f(wx)}" y1="${f(y(g.ciLow))}" y2="${f(y(g.ciHigh))}" stroke="${style.colour}" stroke-width="2"/>` +
        marker(style.marker, wx, y(g.mean), 4, style.colour) +
        `</g>`,
      text(cx, frame.height - frame.bottom + 14, g.run, 'text-anchor="middle" font-weight="bold"'),
    );
  });
  parts.push(text((frame.left + frame.width - frame.right) / 2, frame.height - 6, 'bar: median; whisker: mean, 95 % CI', 'text-anchor="middle"'));
  parts.push('</svg>');
  return parts.join('');
}

/** One subject's change of B against the baseline, in percent. */
export interface ChangeRow {
  subject: string;
  changePct: number;
  /** The interval of the change in %, or null when it could not be computed. */
  ciPct: [number, number] | null;
  /** Printed at the right of the row, e.g. "faster". */
  verdict: string;
  /** Whether the verdict claims a difference: drawn filled, otherwise hollow. */
  proven: boolean;
}

/**
 * The % change per subject with its confidence interval as whiskers, over a
 * shaded band of ±`thresholdPct` (changes inside the band are noise by
 * definition). Filled markers are proven changes, hollow ones are not.
 */
export function changePlot(p: { title: string; thresholdPct: number; rows: ChangeRow[]; axisLabel: string }): string {
  const labelWidth = Math.min(200, 16 + 6.5 * Math.max(4, ...p.rows.map((r) => r.subject.length)));
  const verdictWidth = Math.min(170, 16 + 6.5 * Math.max(4, ...p.rows.map((r) => r.verdict.length)));
  const rowHeight = 26;
  const frame: Frame = { width: 640, height: 0, left: labelWidth, right: verdictWidth, top: 30, bottom: 36 };
  frame.height = frame.top + frame.bottom + rowHeight * Math.max(1, p.rows.length);
  const ends = p.rows.flatMap((r) => [...(r.ciPct ?? []), r.changePct]);
  const xt = niceTicks(Math.min(-p.thresholdPct * 1.5, ...ends), Math.max(p.thresholdPct * 1.5, ...ends));
  const x = linearScale(xt.domain, [frame.left, frame.width - frame.right]);
  const bottom = frame.height - frame.bottom;
  const parts = [openSvg('change', frame, p.title)];
  parts.push(
    `<rect class="threshold-band" x="${f(x(-p.thresholdPct))}" y="${frame.top}" width="${f(x(p.thresholdPct) - x(-p.thresholdPct))}" height="${bottom - frame.top}" fill="#e8e8e8" stroke="#bbb" stroke-dasharray="3 2"/>`,
  );
  for (const t of xt.ticks) {
    parts.push(
      `<line x1="${f(x(t))}" x2="${f(x(t))}" y1="${frame.top}" y2="${bottom}" stroke="${t === 0 ? '#555' : '#eee'}"/>`,
      text(x(t), bottom + 13, tickLabel(t, xt.ticks), 'text-anchor="middle"'),
    );
  }
  p.rows.forEach((r, i) => {
    const cy = frame.top + rowHeight * (i + 0.5);
    const whisker = r.ciPct === null ? '' : ciWhisker(x(r.ciPct[0]), x(r.ciPct[1]), cy);
    parts.push(
      `<g class="change-row" data-subject="${escapeXml(r.subject)}">` +
        text(frame.left - 8, cy + 4, r.subject, 'text-anchor="end"') +
        whisker +
        marker('diamond', x(r.changePct), cy, 5, '#222', r.proven) +
        text(frame.width - frame.right + 8, cy + 4, r.verdict) +
        `</g>`,
    );
  });
  parts.push(text((frame.left + frame.width - frame.right) / 2, frame.height - 6, p.axisLabel, 'text-anchor="middle"'));
  parts.push(
    `<g class="legend">` +
      `<rect x="${frame.left}" y="${frame.top - 18}" width="14" height="10" fill="#e8e8e8" stroke="#bbb" stroke-dasharray="3 2"/>` +
      text(frame.left + 18, frame.top - 9, `noise threshold ±${p.thresholdPct} %`) +
      marker('diamond', frame.left + 170, frame.top - 13, 5, '#222', true) +
      text(frame.left + 178, frame.top - 9, 'proven change') +
      marker('diamond', frame.left + 270, frame.top - 13, 5, '#222', false) +
      text(frame.left + 278, frame.top - 9, 'not proven; whiskers: 95 % CI') +
      `</g>`,
  );
  parts.push('</svg>');
  return parts.join('');
}

/** A horizontal interval from x0 to x1 with end caps. */
function ciWhisker(x0: number, x1: number, cy: number): string {
  const stroke = 'stroke="#222" stroke-width="1.5"';
  return (
    `<line x1="${f(x0)}" x2="${f(x1)}" y1="${f(cy)}" y2="${f(cy)}" ${stroke}/>` +
    `<line x1="${f(x0)}" x2="${f(x0)}" y1="${f(cy - 5)}" y2="${f(cy + 5)}" ${stroke}/>` +
    `<line x1="${f(x1)}" x2="${f(x1)}" y1="${f(cy - 5)}" y2="${f(cy + 5)}" ${stroke}/>`
  );
}

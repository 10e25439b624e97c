import assert from 'node:assert/strict';
import { test } from 'node:test';
import { changePlot, niceTicks, roundsPlot } from '../../src/report/svg.ts';

test('axis ticks are round numbers covering the data', () => {
  assert.deepEqual(niceTicks(0.3, 9.7), { ticks: [0, 2, 4, 6, 8, 10], domain: [0, 10] });
  assert.deepEqual(niceTicks(169.7, 183.4), { ticks: [165, 170, 175, 180, 185], domain: [165, 185] });
  assert.deepEqual(niceTicks(-6.9, 2.5, 5).ticks, [-8, -6, -4, -2, 0, 2, 4]);
});

test('each run has its own marker shape, so the rounds plot reads without colour', () => {
  const svg = roundsPlot({
    title: 't',
    unit: 'ns/call',
    series: [
      { run: 'A', values: [1, 2, 3] },
      { run: 'B', values: [4, 5] },
      { run: 'A2', values: [6] },
    ],
  });
  const group = (run: string): string => new RegExp(`<g class="series" data-run="${run}">(.*?)</g>`).exec(svg)?.[1] ?? '';
  assert.equal(group('A').match(/<circle /g)?.length, 3);
  assert.equal(group('B').match(/<path /g)?.length, 2);
  assert.equal(group('A2').match(/<rect /g)?.length, 1);
  // Two dashed separators between three runs, and a legend naming each run.
  assert.equal(svg.match(/stroke-dasharray="4 3"/g)?.length, 2);
  for (const label of ['A (baseline)', 'B (candidate)', 'A2 (baseline again)']) assert.ok(svg.includes(`>${label}</text>`));
});

test('the change plot shades the threshold band and escapes subject names', () => {
  const svg = changePlot({
    title: 'change',
    thresholdPct: 1,
    axisLabel: 'change %',
    rows: [
      { subject: '<script>x</script>', changePct: -6.5, ciPct: [-6.9, -6.1], verdict: 'faster', proven: true },
      { subject: 'read', changePct: 0.2, ciPct: null, verdict: 'insufficient data', proven: false },
    ],
  });
  assert.ok(!svg.includes('<script>'));
  assert.ok(svg.includes('&lt;script&gt;x&lt;/script&gt;'));
  // The band spans -1 % to +1 % on the same scale as the axis ticks.
  const band = /<rect class="threshold-band" x="([\d.]+)" y="30" width="([\d.]+)"/.exec(svg);
  assert.ok(band, 'threshold band drawn');
  const tickX = (t: string): number => Number(new RegExp(`<text x="([\\d.]+)" y="[\\d.]+" text-anchor="middle">${t}</text>`).exec(svg)?.[1]);
  const perPct = (tickX('2') - tickX('0')) / 2;
  assert.ok(Math.abs(Number(band[1]) - (tickX('0') - perPct)) < 0.2);
  assert.ok(Math.abs(Number(band[2]) - 2 * perPct) < 0.2);
});

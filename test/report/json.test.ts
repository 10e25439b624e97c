import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonReport } from '../../src/report/json.ts';
import { abaComparison, CTX } from './fixtures.ts';

/** Every key of a JSON value, recursively. */
function keys(v: unknown): string[] {
  if (Array.isArray(v)) return v.flatMap(keys);
  if (typeof v !== 'object' || v === null) return [];
  return Object.entries(v).flatMap(([k, x]) => [k, ...keys(x)]);
}

test('the JSON report is a versioned document with the unit in every unit-valued field name', () => {
  const doc = JSON.parse(jsonReport(abaComparison(), CTX));
  assert.equal(doc.format, 'hintlab-report');
  assert.equal(doc.version, 3);
  assert.equal(doc.comparisonSchema, 9);
  assert.equal(doc.unit, 'ns/call');
  assert.equal(doc.generatedAt, '2025-01-02T03:04:05.000Z');
  const sched = doc.comparison.subjects[0];
  assert.equal(sched.subject, 'sched_getattr');
  assert.equal(sched.runs[0].meanNsPerCall, 182.4);
  assert.equal(sched.runs[1].meanNsPerCall, 170.6);
  assert.equal(sched.change.baselineMeanNsPerCall, 182.4);
  assert.ok(Math.abs(sched.change.changeNsPerCall - -11.8) < 1e-9);
  assert.deepEqual(sched.change.ciPct, { kind: 'ok', low: -6.9, high: -6.1, level: 0.95 });
  assert.equal(sched.runs[0].valuesNsPerCall.length, 15);
  assert.equal(sched.drift.vsMidpoint.midpointNsPerCall, 182.5);
  assert.deepEqual(keys(doc).filter((k) => k.endsWith('InUnit')), []);
  assert.equal(doc.reproduce.at(-1), 'hintlab compare stock patched stock-again --threshold 1 --alpha 0.05 --correction holm');
});

test('an instruction-counted comparison names instructions, never ns', () => {
  const doc = JSON.parse(jsonReport(abaComparison({ unit: 'instructions/call' }), CTX));
  assert.equal(doc.comparison.subjects[0].runs[0].meanInstructionsPerCall, 182.4);
  assert.deepEqual(keys(doc).filter((k) => /Ns/.test(k)), []);
});

test('non-finite numbers are written as strings, not silently as null', () => {
  const c = abaComparison();
  c.subjects[0]!.runs[0]!.cvPct = Number.NaN;
  const doc = JSON.parse(jsonReport(c, CTX));
  assert.equal(doc.comparison.subjects[0].runs[0].cvPct, 'NaN');
});

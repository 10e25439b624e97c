/**
 * Reading `hintlab hints --format json` back: format name and version are
 * checked, every row's counts and verdict too; a wrong or damaged file is
 * refused naming the file and the JSON path. (A real document from the CLI
 * goes through the loader in test/report/cli-evidence.test.ts.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UserError } from '../../src/errors.ts';
import { hintsFromJson } from '../../src/hints/document.ts';

function refusal(doc: unknown): string {
  try {
    hintsFromJson(doc, 'h.json');
  } catch (err) {
    assert.ok(err instanceof UserError, String(err));
    return err.message;
  }
  assert.fail('the document was accepted');
}

const ROW = {
  file: 'fs/select.c',
  line: 635,
  function: 'core_sys_select',
  condition: 'n < 0',
  annotation: null,
  executions: 2000,
  thenCount: 0,
  confidence: 'lines',
  methods: ['then-branch line 636'],
  evidence: [{ workload: 'w', executions: 2000, thenCount: 0, confidence: 'lines' }],
  verdict: { kind: 'propose', hint: 'unlikely' },
};

function doc(edit: (d: Record<string, unknown>, row: Record<string, unknown>) => void = () => {}): unknown {
  const row: Record<string, unknown> = structuredClone(ROW);
  const d: Record<string, unknown> = {
    format: 'hintlab-hints',
    version: 1,
    generatedBy: 'hintlab 0.1.0',
    mode: 'profile',
    root: '/src',
    thresholds: { minBias: 0.99, minHits: 1000 },
    workloads: [{ name: 'w', files: ['/p/w.gcov.json.gz'], outsideSourceTree: [] }],
    rows: [row],
  };
  edit(d, row);
  return d;
}

test('a well-formed document loads with its rows, counts and verdicts', () => {
  const loaded = hintsFromJson(doc(), 'h.json');
  assert.equal(loaded.mode, 'profile');
  assert.deepEqual(loaded.thresholds, { minBias: 0.99, minHits: 1000 });
  // a row without `layout` (no branch set behind it, or a document from before layouts) reads as null
  assert.deepEqual(loaded.rows[0], { ...ROW, layout: null });
});

test('a wrong format name or version is refused naming the file and the fix', () => {
  assert.equal(
    refusal(doc((d) => (d.format = 'hintlab-report'))),
    "h.json is not a hintlab hints --format json document (format: expected 'hintlab-hints', got \"hintlab-report\"); " +
      'write one with `hintlab hints ... --format json > FILE`',
  );
  assert.match(refusal(doc((d) => (d.version = 2))), /^h\.json is not a hintlab hints --format json document \(version: expected 1, got 2\)/);
  assert.match(refusal('hintlab-hints'), /\(the document: expected an object, got 'hintlab-hints'\)/);
});

test('a damaged row is refused with its JSON path', () => {
  assert.match(refusal(doc((_, r) => (r.executions = -1))), /\(rows\[0\]\.executions: expected a non-negative number, got -1\)/);
  assert.match(refusal(doc((_, r) => (r.verdict = { kind: 'propose', hint: 'maybe' }))), /\(rows\[0\]\.verdict\.hint: expected one of likely, unlikely, got 'maybe'\)/);
  assert.match(refusal(doc((_, r) => (r.evidence = [{ workload: 'w' }]))), /\(rows\[0\]\.evidence\[0\]\.executions: expected a non-negative number, got undefined\)/);
  assert.match(refusal(doc((d) => delete d.rows)), /\(rows: expected an array, got undefined\)/);
  // Static candidates carry no counts: null is allowed there, and only there is it meaningful.
  assert.equal(hintsFromJson(doc((_, r) => ((r.executions = null), (r.thenCount = null))), 'h.json').rows[0]?.executions, null);
});

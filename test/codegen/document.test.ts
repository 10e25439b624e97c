/**
 * Reading `hintlab codegen --json` back: a real document from the CLI loads
 * unchanged; foreign, old or damaged ones are refused naming the file and
 * the JSON path of the first problem.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UserError } from '../../src/errors.ts';
import { codegenFromJson } from '../../src/codegen/document.ts';
import { cli, fixture } from './helpers.ts';

/** What codegenFromJson throws for `doc`, as the message. */
function refusal(doc: unknown): string {
  try {
    codegenFromJson(doc, 'cg.json');
  } catch (err) {
    assert.ok(err instanceof UserError, String(err));
    return err.message;
  }
  assert.fail('the document was accepted');
}

/** A small valid document; `edit` damages one part of it. */
function doc(edit: (d: { cells: Record<string, unknown>[] } & Record<string, unknown>) => void = () => {}): unknown {
  const d = {
    schema: 1,
    subject: { kind: 'files', before: 'a.c', after: 'b.c', cflags: [] },
    notes: [],
    cells: [
      {
        state: 'compared',
        compiler: { command: 'gcc', label: 'gcc 12.2.0', family: 'gcc', version: '12.2.0' },
        opt: 'O2',
        functions: [{ name: 'f', class: 'identical', instructions: 3, sizeBytes: 9 }],
      } as Record<string, unknown>,
    ],
  };
  edit(d);
  return d;
}

test('a document written by hintlab codegen --json loads as it was written', async () => {
  // A comment-only change is identical by construction.
  const r = await cli(['codegen', '--before', fixture('early-return.c'), '--after', fixture('early-return-comment.c'), '--opt', 'O2,Os', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const parsed = JSON.parse(r.stdout) as Record<string, unknown>;
  const { format, ...rest } = parsed;
  assert.equal(format, 'hintlab-codegen', 'the document names its format');
  const loaded = codegenFromJson(parsed, 'real.json');
  assert.deepEqual(loaded, rest);
  assert.deepEqual(loaded.cells.map((c) => (c.state === 'compared' ? c.functions.map((f) => f.class) : c.state)), [['identical'], ['identical']]);
});

test('another hintlab document, another schema or no object at all is refused naming the file', () => {
  assert.equal(
    refusal({ format: 'hintlab-report', version: 1 }),
    'cg.json is not a hintlab codegen --json document (format: this is a "hintlab-report" document); write one with `hintlab codegen ... --json > FILE`',
  );
  assert.match(refusal(doc((d) => (d.schema = 3))), /^cg\.json is not a hintlab codegen --json document \(schema: expected 1 or 2, got 3\)/);
  assert.match(refusal([1, 2]), /\(the document: expected an object, got an array\)/);
  assert.match(refusal(doc((d) => delete d.schema)), /\(schema: expected 1 or 2, got nothing\)/);
  // A document that names itself hintlab-codegen is read like one that does not.
  assert.equal(codegenFromJson(doc((d) => (d.format = 'hintlab-codegen')), 'cg.json').cells.length, 1);
});

test('a damaged cell or function is refused with its JSON path', () => {
  assert.match(refusal(doc((d) => (d.cells[0]!.opt = 'O9'))), /\(cells\[0\]\.opt: expected one of O2, Os, O3, got 'O9'\)/);
  assert.match(
    refusal(doc((d) => ((d.cells[0]!.functions as Record<string, unknown>[])[0]!.class = 'moved'))),
    /\(cells\[0\]\.functions\[0\]\.class: expected one of identical, padding, layout, changed, added, removed, got 'moved'\)/,
  );
  // A layout function needs its paths: a truncated one is not half-rendered.
  assert.match(
    refusal(doc((d) => ((d.cells[0]!.functions as Record<string, unknown>[])[0]!.class = 'layout'))),
    /\(cells\[0\]\.functions\[0\]\.fallThrough: expected an object, got undefined\)/,
  );
  assert.match(refusal(doc((d) => (d.cells = [{ state: 'skipped', opt: 'O2' }]))), /\(cells\[0\]\.compilerCommand: expected a string, got undefined\)/);
  assert.match(refusal(doc((d) => (d.subject = { kind: 'kernel', tree: '/t', patch: 'p', object: 'o.o', config: { kind: 'file' } }))), /\(subject\.config\.path: expected a string/);
});

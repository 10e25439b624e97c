/**
 * The registry of report formats: each command's --format names come in the
 * order its help lists them, each -o extension maps to the formats that fit
 * it, and every reporter is a format of the table.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extensionsOf, formatChoices, FORMATS, formatsOf, REPORTERS, reporterFor, type DocumentKind } from '../../src/report/formats.ts';

test('report and trial take the same -o extensions: .txt holds the text report by default, or the lkml block', () => {
  const expected = { '.txt': ['text', 'lkml'], '.md': ['md'], '.json': ['json'], '.html': ['html'], '.htm': ['html'] };
  assert.deepEqual(extensionsOf('report'), expected);
  assert.deepEqual(extensionsOf('trial'), expected);
  assert.deepEqual(extensionsOf('run'), { '.json': ['json'], '.csv': ['csv'] });
});

test('each command lists its formats in its own order', () => {
  assert.deepEqual(formatsOf('report'), ['text', 'lkml', 'md', 'json', 'html']);
  assert.deepEqual(formatsOf('trial'), ['lkml', 'md', 'html', 'json', 'text']);
  assert.deepEqual(formatsOf('metric'), ['text', 'md', 'json']);
  assert.equal(formatChoices('hints'), 'table, patch or json');
  assert.equal(formatChoices('run'), 'json or csv');
});

test('a format a kind is not written in has no reporter, and nothing on the prototype is taken for one', () => {
  assert.equal(reporterFor('metric', 'html'), undefined);
  assert.equal(reporterFor('report', 'csv'), undefined);
  assert.equal(reporterFor('report', 'toString'), undefined);
  assert.equal(typeof reporterFor('report', 'lkml'), 'function');
});

test('every reporter of every kind is a format of the table', () => {
  for (const kind of Object.keys(REPORTERS) as DocumentKind[]) {
    for (const name of formatsOf(kind)) assert.ok(Object.hasOwn(FORMATS, name), `${kind} writes ${name}, which FORMATS does not name`);
  }
});

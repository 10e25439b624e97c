/**
 * Profiles that are damaged or forged: an unknown gcov format_version,
 * fractional or impossible counts, a branch profiler count beyond any
 * counter, and a small gzip file that inflates far past the cap. Each is
 * refused naming the file and the record, never printed as "1e+30
 * executions".
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { UserError } from '../../src/errors.ts';
import { gunzipCapped } from '../../src/gunzip.ts';
import { parseGcovDocument, readGcovJson } from '../../src/hints/gcov.ts';
import { parseProfiler } from '../../src/hints/profiler.ts';
import { tempDir } from '../helpers/cli.ts';

/** gcov JSON as GCC 12 writes it for `int f(int x) { if (x > 3) return 1; return 0; }`, with its count and version replaced. */
function gcovDoc(count: unknown, version: unknown = '1', arcCount: unknown = 1): unknown {
  return {
    gcc_version: '12.2.0',
    format_version: version,
    current_working_directory: '/tmp',
    files: [{
      file: 't.c',
      functions: [{ name: 'f', start_line: 1, end_line: 1 }],
      lines: [{ line_number: 1, count, function_name: 'f', branches: [{ count: 0, fallthrough: true, throw: false }, { count: arcCount, fallthrough: false, throw: false }] }],
    }],
  };
}

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof UserError, String(err));
    return err.message;
  }
  assert.fail('not refused');
};

test('gcov JSON of format_version "1" and "2" is read; "99" is refused naming the file and the versions known', () => {
  assert.equal(parseGcovDocument('t.gcov.json', gcovDoc(3, '1')).files[0]?.lines.get(1)?.count, 3);
  assert.equal(parseGcovDocument('t.gcov.json', gcovDoc(3, '2')).formatVersion, '2');
  assert.equal(
    refusal(() => parseGcovDocument('t.gcov.json', gcovDoc(3, '99'))),
    't.gcov.json: gcov JSON format_version "99" is not one hintlab reads ("1", "2": GCC 9 to 14); write it with a GCC of those, or tell us about the new format',
  );
  const unversioned = gcovDoc(3) as Record<string, unknown>;
  delete unversioned.format_version;
  assert.match(refusal(() => parseGcovDocument('t.gcov.json', unversioned)), /format_version missing is not one hintlab reads/);
});

test('a fractional, a 1e30 and a 2^53 count are refused naming the file, the line and the function', () => {
  assert.match(refusal(() => parseGcovDocument('t.gcov.json', gcovDoc(2.5))), /^t\.gcov\.json: not gcov JSON \(files\[0\]\.lines\[0\], t\.c:1 in f: "count" 2\.5 is not a whole number of executions\)/);
  assert.match(refusal(() => parseGcovDocument('t.gcov.json', gcovDoc(1e30))), /\(files\[0\]\.lines\[0\], t\.c:1 in f: "count" 1e\+30 is above 2\^53-1, more than any counter reaches/);
  assert.match(refusal(() => parseGcovDocument('t.gcov.json', gcovDoc(2 ** 53))), /"count" 9007199254740992 is above 2\^53-1/);
  assert.match(refusal(() => parseGcovDocument('t.gcov.json', gcovDoc(3, '1', 0.5))), /\(files\[0\]\.lines\[0\], t\.c:1 in f, branch 1: "count" 0\.5 is not a whole number/);
  // the largest exact count is still a count
  assert.equal(parseGcovDocument('t.gcov.json', gcovDoc(2 ** 53 - 1)).files[0]?.lines.get(1)?.count, 2 ** 53 - 1);
});

test('a branch profiler count of 10^26 is refused naming the file, the row, the function and its line', () => {
  const text = ' correct incorrect  %        Function                  File              Line\n' +
    ' ------- ---------  -        --------                  ----              ----\n' +
    '      10        2  16 do_thing                       thing.c              42\n' +
    ' 100000000000000000000000000        0   0 other_thing                    thing.c              77\n';
  assert.equal(parseProfiler('branch_annotated', text.split('\n').slice(0, 3).join('\n'))[0]?.first, 10);
  assert.equal(
    refusal(() => parseProfiler('branch_annotated', text)),
    'branch_annotated:4: count 100000000000000000000000000 of other_thing (thing.c:77) is above 2^53-1, more than any counter reaches; the file is damaged, read it again from trace_stat',
  );
});

test('gzip that inflates past the cap is refused naming the cap and the file; within it, it is read', () => {
  const zeros = gzipSync(Buffer.alloc(4 * 2 ** 20));
  assert.equal(gunzipCapped(zeros, 4 * 2 ** 20, 'z.gz', 'fix').length, 4 * 2 ** 20);
  assert.equal(
    refusal(() => gunzipCapped(zeros, 2 ** 20, 'z.gz', 're-run gcov to write it again.')),
    'z.gz: decompresses to more than 1 MiB, the cap for such a file; it is not what hintlab expects there (a damaged file, or a gzip bomb); re-run gcov to write it again.',
  );
});

test('a .gcov.json.gz of 300 MiB of zeros (a 300 KB file) is refused at the 256 MiB cap, naming the file', () => {
  const file = join(tempDir(), 'bomb.gcov.json.gz');
  writeFileSync(file, gzipSync(Buffer.alloc(300 * 2 ** 20), { level: 9 }));
  assert.match(refusal(() => readGcovJson(file)), new RegExp(`^${file}: decompresses to more than 256 MiB, the cap for such a file`));
});

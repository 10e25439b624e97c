/**
 * Early exits read by flow conservation on committed gcov JSON from real
 * `gcc --coverage` builds at -O2 and -Os (fixtures/exits/make.sh), in the
 * shapes kernel code has them: a merged return, goto out, break and
 * continue in a loop, a #ifdef or a loop after the `if`, a line that does
 * not parse, a line an inlined callee re-enters; and the refused shapes (a
 * label after the `if`, a fall-through into another case, a #ifdef with an
 * #else, a loop that may return, a macro given a label). Expected counts follow from the
 * arithmetic in fixtures/exits/exits.c's header comment, not from a profile.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { hintlab, markerLine, rowSummary as summary, type JsonRow as Row } from './helpers.ts';

const DIR = new URL('./fixtures/exits/', import.meta.url).pathname;
const SOURCE = readFileSync(`${DIR}exits.c`, 'utf8');
const N = 100_000;
const line = (m: string): number => markerLine(SOURCE, m);

async function rows(opt: 'O2' | 'Os', bias = '0.99'): Promise<Row[]> {
  const r = await hintlab(['hints', `w=${DIR}exits-${opt}.gcov.json.gz`, '--src', DIR, '--format', 'json', '--min-hits', '1', '--min-bias', bias]);
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { rows: Row[] }).rows;
}

const at = (all: Row[], marker: string): Row | undefined => all.find((r) => r.line === line(marker));

/** [marker, executions, then-branch runs, confidence], from the program's arithmetic. */
const COUNTED: [string, number, number, string][] = [
  ['MRET', N, 200, 'flow'],
  ['MRET2', N - 200, 100, 'flow'],
  ['GOTO', N, 100, 'lines'],
  ['GOTO1', N - 100, 400, 'flow'],
  ['BRK', 798_000, 1000, 'flow'],
  ['CONT', 797_000, 800, 'lines'],
  ['PRE', N, 100, 'flow'],
  ['PREEND', N - 100, 100, 'flow'],
  ['PRELAST', N - 200, 100, 'lines'],
  ['LOOPNEXT', N, 100, 'flow'],
  ['ERRNEXT', N, 100, 'flow'],
];

/** [marker, executions, the refusal's reason]. */
const REFUSED: [string, number, RegExp][] = [
  ['LBL', N, /the label at line \d+ after it has other predecessors \(gotos\)/],
  ['CASE', N / 4, /it ends a switch case at line \d+/],
  ['PREELSE', N, /the #if block at line \d+ after it has several arms, and which one was compiled is not in the source/],
  ['LOOPRET', N - 100, /the loop at line \d+ after it counts its iterations, not its entries, and it may be left other than through its end/],
  ['MACROJ', N, /the loop at line \d+ after it counts its iterations, not its entries, and line \d+ inside it gives the label fault to a macro, which may jump there/],
];

for (const opt of ['O2', 'Os'] as const) {
  describe(`early exits at -${opt}`, () => {
    test('the merged return, the break and the goto on the if line have no line count of their own', () => {
      const doc = JSON.parse(gunzipSync(readFileSync(`${DIR}exits-${opt}.gcov.json.gz`)).toString('utf8')) as {
        files: { file: string; lines: { line_number: number }[] }[];
      };
      const counted = new Set(doc.files.filter((f) => f.file === 'exits.c').flatMap((f) => f.lines.map((l) => l.line_number)));
      for (const m of ['MRET', 'BRK', 'PRE', 'LOOPNEXT', 'ERRNEXT']) assert.ok(!counted.has(line(m) + 1), `${m}: line ${line(m) + 1} has a count`);
    });

    test('every exit the counts decide gets its direction and its count', async () => {
      const all = await rows(opt);
      for (const [m, executions, then, confidence] of COUNTED) {
        assert.deepEqual(summary(at(all, m)), [executions, then, confidence, 'unlikely'], m);
      }
    });

    test('a #ifdef after the if: plain statements are looked through, an early exit inside is entered', async () => {
      const all = await rows(opt);
      assert.deepEqual(at(all, 'PRE')?.methods, [`w: then = line ${line('PRE')} - flow past the if (line ${line('PRE') + 5} = ${N - 100})`]);
      assert.deepEqual(at(all, 'PREEND')?.methods, [`w: then = line ${line('PREEND')} - flow past the if (line ${line('PRELAST')} = ${N - 200})`]);
    });

    test('the shapes where the statement after the if has other predecessors are refused, with the reason', async () => {
      const all = await rows(opt);
      for (const [m, executions, why] of REFUSED) {
        const r = at(all, m);
        assert.deepEqual(summary(r), [executions, null, 'none', 'direction-unknown'], m);
        assert.match(r?.verdict.detail ?? '', why, m);
      }
    });

    test('a next line an inlined callee re-enters is passed over for the line after it', async () => {
      // 80 000 for line CALLNEXT+2 (53 333 entries and 26 667 returns of fetch()) would say 20 000 true.
      const r = at(await rows(opt, '0.51'), 'CALLNEXT');
      assert.deepEqual(summary(r), [N, 46_667, 'flow', 'unlikely']);
      assert.deepEqual(r?.methods, [`w: then = line ${line('CALLNEXT')} - flow past the if (line ${line('CALLNEXT') + 3} = 53333)`]);
    });
  });
}

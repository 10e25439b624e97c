/**
 * The hostile pass: every case of the hardening issue run against the built
 * CLI (bin/hintlab.js, so `npm run build` first) in a scratch directory, as
 * root (device nodes, bind mounts, a tmpfs). Prints a Markdown table
 * (action, expected, observed, clean) for docs/hostile-pass.md; the
 * progress goes to stderr.
 *
 *   npm run build && node --import tsx bench/hostile-pass.ts > table.md
 *   node --import tsx bench/hostile-pass.ts 'hints --static'   # only cases whose action contains this
 *
 * A case is clean by a mechanical rule (exit status, the first line of
 * stderr, whether the file or node survived), written next to it in
 * bench/hostile/.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { concurrencyCases } from './hostile/cases-concurrency.ts';
import { costCases } from './hostile/cases-cost.ts';
import { fileCases } from './hostile/cases-files.ts';
import { inputCases } from './hostile/cases-input.ts';
import { lavaCases } from './hostile/cases-lava.ts';
import { input2Cases } from './hostile/cases-input2.ts';
import { processCases } from './hostile/cases-processes.ts';
import { switchCases } from './hostile/cases-switch.ts';
import { treeCases } from './hostile/cases-tree.ts';
import { hintlab, makeScratch, ROOT, runCases, summary } from './hostile/harness.ts';

if (!existsSync(join(ROOT, 'dist', 'cli', 'entry.js'))) {
  process.stderr.write('dist/ is missing: run npm run build first\n');
  process.exit(2);
}
const base = makeScratch();
const db = join(base.dir, 'results.db');
// Two real, short bench runs, stored with a relative --db as a user types it.
for (const label of ['A', 'B']) {
  const r = hintlab(base, ['bench', '--db', 'results.db', '--profile', 'getppid', '--label', label, '--rounds', '3', '--warmups', '0', '--processes', '1', '--ops', '10000']);
  if (r.status !== 0) throw new Error(`bench --label ${label} failed: ${summary(r)}`);
}
const only = process.argv[2];
const cases = [...fileCases, ...inputCases, ...processCases, ...treeCases, ...switchCases, ...input2Cases, ...concurrencyCases, ...costCases, ...lavaCases].filter((c) => only === undefined || c.action.includes(only));
const rows = await runCases(cases, { ...base, db });
process.stdout.write(`${rows.join('\n')}\n`);
const clean = rows.filter((r) => r.endsWith('| yes |')).length;
process.stderr.write(`${clean} of ${rows.length - 2} cases clean; scratch directory ${base.dir} removed\n`);
rmSync(base.dir, { recursive: true, force: true });

/**
 * The run-level A/A false-claim rate: how often two back-to-back `hintlab
 * bench` runs of the same kernel get a `faster` or `slower` verdict for any
 * profile. Both runs measure the same kernel, so every such verdict is false.
 *
 * Measures `--pairs` pairs (A then A2, seconds apart) into a scratch
 * database, then judges every pair twice on the same stored rounds: with
 * round-level statistics (every round taken as an independent observation,
 * as compare did before units of replication: `roundsAsUnits`) and with the
 * unit-level statistics compare uses now (probe processes as the units).
 * Pairs already in the database are reused, so the analysis can be re-run
 * without measuring again. A third figure reads three consecutive runs
 * (pair i's A and A2, then pair i+1's A) as an A/B/A of one kernel, judged
 * as compare judges A/B/A: B against A+A2, widened by the run-to-run
 * variation A and A2 show. The figures are quoted in docs/compare.md and
 * the README.
 *
 *   node --import tsx bench/aa-false-claims.ts [--pairs 20] [--db FILE]
 *     [--profile getppid,sched_getattr,mincore-256k] [--rounds 10] [--ops 20000] [--processes 3]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compare } from '../src/compare/compare.ts';
import type { Comparison } from '../src/compare/types.ts';
import { RunNotFoundError, Store } from '../src/store/store.ts';

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1]! : dflt;
}

const pairs = Number(arg('--pairs', '20'));
const db = arg('--db', join(mkdtempSync(join(tmpdir(), 'hintlab-aa-')), 'aa.db'));
const profile = arg('--profile', 'getppid,sched_getattr,mincore-256k');
const benchArgs = ['--profile', profile, '--rounds', arg('--rounds', '10'), '--ops', arg('--ops', '20000'), '--processes', arg('--processes', '3')];
const hintlab = join(import.meta.dirname, '..', 'bin', 'hintlab.js');

function stored(store: Store, label: string): boolean {
  try {
    return store.resolveRun(label).status === 'complete';
  } catch (err) {
    if (err instanceof RunNotFoundError) return false;
    throw err;
  }
}

/** Measure the pairs not yet in the database, A then A2 back to back. */
function measure(): void {
  for (let i = 1; i <= pairs; i++) {
    for (const side of ['A', 'A2']) {
      const label = `aa-${i}-${side}`;
      const store = Store.open(db);
      const done = stored(store, label);
      store.close();
      if (done) continue;
      execFileSync('node', [hintlab, 'bench', '--db', db, ...benchArgs, '--label', label], { stdio: ['ignore', 'ignore', 'inherit'] });
    }
    process.stderr.write(`pair ${i}/${pairs} stored\n`);
  }
}

const claims = (cmp: Comparison) => cmp.subjects.filter((s) => s.verdict.verdict === 'faster' || s.verdict.verdict === 'slower');

measure();
const store = Store.open(db);
let roundLevel = 0;
let unitLevel = 0;
let withheld = 0;
let insufficient = 0;
let abaClaims = 0;
const lines: string[] = [];
for (let i = 1; i <= pairs; i++) {
  const a = store.resolveRun(`aa-${i}-A`);
  const b = store.resolveRun(`aa-${i}-A2`);
  // The same two runs, read as A/B: any faster/slower is a false claim.
  const old = compare({ a, b }, { roundsAsUnits: true, allowMismatch: true });
  const now = compare({ a, b }, { allowMismatch: true });
  const oldClaims = claims(old);
  const newClaims = claims(now);
  if (oldClaims.length) roundLevel++;
  if (newClaims.length) unitLevel++;
  // claims the unit-level tests made that the design rule withheld (two separate runs never claim)
  const held = now.subjects.filter((s) => s.verdict.caveats.includes('separate-runs'));
  if (held.length) withheld++;
  if (now.subjects.some((s) => s.verdict.verdict === 'insufficient units')) insufficient++;
  const next = i < pairs ? store.resolveRun(`aa-${i + 1}-A`) : null;
  const aba = next ? claims(compare({ a, b, a2: next }, { allowMismatch: true })) : [];
  if (aba.length) abaClaims++;
  const say = (c: typeof oldClaims) => c.map((s) => `${s.subject} ${s.verdict.verdict} ${s.change.changePct.toFixed(1)} %`).join('; ') || '-';
  lines.push(`pair ${String(i).padStart(2)}: rounds: ${say(oldClaims)} | units: ${say(newClaims)}${held.length ? ` (withheld as separate runs: ${held.map((s) => s.subject).join(', ')})` : ''}${next ? ` | A/B/A: ${say(aba)}` : ''}`);
}
store.close();
const pct = (n: number) => `${((100 * n) / pairs).toFixed(0)} %`;
console.log(lines.join('\n'));
console.log(`${pairs} A/A pairs of hintlab bench ${benchArgs.join(' ')} (runs in ${db})`);
console.log(`pairs with any faster/slower, round-level statistics: ${roundLevel} of ${pairs} (${pct(roundLevel)})`);
console.log(`pairs with any faster/slower, unit-level statistics:  ${unitLevel} of ${pairs} (${pct(unitLevel)}); the unit-level tests alone would have claimed in ${withheld} (${pct(withheld)}), withheld because two separate runs cannot tell a shift between runs from a change`);
console.log(`A/B/A of three consecutive runs with any faster/slower (units, B vs A+A2 with run-to-run variation): ${abaClaims} of ${pairs - 1} (${((100 * abaClaims) / (pairs - 1)).toFixed(0)} %)`);
if (insufficient) console.log(`pairs with a subject judged 'insufficient units': ${insufficient}`);

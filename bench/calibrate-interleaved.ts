/**
 * Known-effect calibration with interleaving: can this machine see a change,
 * and does it claim changes that are not there? Each invocation is one
 * `hintlab bench --label-b`, its probe processes alternating A B B A A B.
 *
 * - detection: B pays a 64-instruction seccomp filter on every syscall
 *   (`--inject-seccomp-b 64`); counted when every profile comes out `slower`.
 * - false claims: no filter on either side (`--inject-seccomp-b 0`); counted
 *   when any profile comes out `faster` or `slower`.
 *
 * Every pair is judged by the real `compare()` (Holm over the profiles, 1 %
 * threshold) twice on the same rounds: on rounds as if independent, and on
 * units (probe processes, compare's default). `--analyze DB` judges runs
 * stored earlier again.
 *
 *   node --import tsx bench/calibrate-interleaved.ts [--detect 10] [--null 20]
 *        [--rounds 12] [--processes 3] [--ops 10000] [--db FILE] [--analyze FILE]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { compare } from '../src/compare/compare.ts';
import { Store } from '../src/store/store.ts';

const PROFILES = 'getppid,sched_getscheduler,sched_getparam,sched_setparam-custom';

const { values: o } = parseArgs({
  options: {
    detect: { type: 'string', default: '10' },
    null: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '12' },
    processes: { type: 'string', default: '3' },
    ops: { type: 'string', default: '10000' },
    db: { type: 'string' },
    analyze: { type: 'string' },
  },
});

function measure(db: string, label: string, filter: number): void {
  const args = ['bench', '--db', db, '--profile', PROFILES, '--ops', o.ops, '--warmups', '1', '--rounds', o.rounds, '--processes', o.processes,
    '--label', `${label}-A`, '--label-b', `${label}-B`, '--inject-seccomp-b', String(filter)];
  execFileSync(process.execPath, ['bin/hintlab.js', ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
}

type Statistics = 'rounds' | 'units';
type Tally = Record<'detect' | 'null', { pairs: number; hits: number }>;

/**
 * Verdicts of every stored pair `<kind><i>-A` / `<kind><i>-B`, by kind, on
 * the same stored rounds twice: with every round taken as independent
 * (`roundsAsUnits`, compare's statistics before units of replication) and
 * with the probe processes as units (compare's default).
 */
function judge(db: string): void {
  const store = Store.open(db);
  const runs = store.listRuns().filter((r) => r.status === 'complete' && r.label?.endsWith('-A'));
  const tally: Record<Statistics, Tally> = {
    rounds: { detect: { pairs: 0, hits: 0 }, null: { pairs: 0, hits: 0 } },
    units: { detect: { pairs: 0, hits: 0 }, null: { pairs: 0, hits: 0 } },
  };
  for (const r of runs) {
    const label = r.label!.slice(0, -2);
    const kind = label.startsWith('detect') ? 'detect' : 'null';
    const line: string[] = [];
    for (const stats of ['rounds', 'units'] as const) {
      const cmp = compare({ a: store.getRun(r.id), b: store.resolveRun(`${label}-B`) }, { roundsAsUnits: stats === 'rounds' });
      const verdicts = cmp.subjects.map((s) => s.verdict.verdict);
      const hit = kind === 'detect' ? verdicts.every((v) => v === 'slower') : verdicts.some((v) => v === 'faster' || v === 'slower');
      tally[stats][kind].pairs++;
      if (hit) tally[stats][kind].hits++;
      line.push(`${stats}: ${cmp.subjects.map((s) => `${s.subject} ${s.verdict.verdict}`).join(', ')}`);
    }
    console.log(`${label}\n  ${line.join('\n  ')}`);
  }
  store.close();
  for (const stats of ['rounds', 'units'] as const) {
    const t = tally[stats];
    console.log(`on ${stats}: 64-instruction filter against none: every profile slower in ${t.detect.hits} of ${t.detect.pairs} invocations; ` +
      `no filter on either side: a false claim in ${t.null.hits} of ${t.null.pairs}`);
  }
}

if (o.analyze) {
  judge(o.analyze);
} else {
  const db = o.db ?? join(mkdtempSync(join(tmpdir(), 'calibrate-')), 'calibrate.db');
  const t0 = Date.now();
  // detection and null invocations alternate, so a change of the host hits both kinds
  const n = Math.max(Number(o.detect), Number(o.null));
  for (let i = 0; i < n; i++) {
    if (i < Number(o.detect)) measure(db, `detect${i}`, 64);
    if (i < Number(o.null)) measure(db, `null${i}`, 0);
  }
  console.log(`runs stored in ${db} (${((Date.now() - t0) / 1000).toFixed(0)} s); judge again with --analyze ${db}`);
  judge(db);
}

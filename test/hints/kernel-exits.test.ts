/**
 * Early exits on a real kernel profile: the gcov JSON `hintlab hints
 * collect` brought back from Debian's linux-source-6.12 (kernel/sched, fs
 * and mm profiled, the `profiles` syscall workload, -O2, TCG), committed
 * for kernel/sched/syscalls.c (inside build_policy.c), mm/mincore.c and
 * fs/select.c in fixtures/kernel-6.12/. Every `if` without else whose
 * then-branch always leaves and that the workload reached is listed below
 * with its then-branch count, checked by hand against the JSON's line
 * counts (the `if` line's count less the next statement's, or the
 * then-branch line) and against the workload (the syscall profiles pass
 * valid arguments, so error returns run 0 times; select-1000's 250 calls
 * end do_select's bit loop at `if (i >= n)`), and must get that count. The
 * ones the flow rules refuse are listed apart, with their reason: a
 * scoped_guard block after the `if` (a macro hiding a loop), a next line
 * gcc left without a count, a condition calling a function whose line
 * has more than one arc pair.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cParser, scanSource } from '../../src/hints/parse.ts';
import { gunzipSync } from 'node:zlib';
import { KERNEL_TARBALL, testKernelTree } from '../codegen/kernel-tree.ts';
import { requireFile } from '../helpers/tools.ts';
import { hintlab, type JsonRow } from './helpers.ts';

const DIR = new URL('./fixtures/kernel-6.12/', import.meta.url).pathname;
const FILES = ['kernel/sched/syscalls.c', 'mm/mincore.c', 'fs/select.c'];
interface GcovJson {
  files: { file: string; lines: { line_number: number; count: number }[] }[];
}
const skip = requireFile(KERNEL_TARBALL, 'linux-source-6.12');

/** `file:line` -> [executions, then-branch runs], read by hand from the gcov JSON. */
const COUNTED: Record<string, [number, number]> = {
  'kernel/sched/syscalls.c:207': [10805, 5668],
  'kernel/sched/syscalls.c:210': [5137, 206],
  'kernel/sched/syscalls.c:214': [4931, 9],
  'kernel/sched/syscalls.c:229': [252, 60],
  'kernel/sched/syscalls.c:474': [55006, 0],
  'kernel/sched/syscalls.c:498': [55006, 0],
  'kernel/sched/syscalls.c:511': [55006, 0],
  'kernel/sched/syscalls.c:515': [55006, 0],
  'kernel/sched/syscalls.c:551': [20006, 0],
  'kernel/sched/syscalls.c:555': [55006, 0],
  'kernel/sched/syscalls.c:563': [55006, 0],
  'kernel/sched/syscalls.c:565': [55006, 0],
  'kernel/sched/syscalls.c:571': [55006, 0],
  'kernel/sched/syscalls.c:574': [55006, 0],
  'kernel/sched/syscalls.c:578': [55006, 0],
  'kernel/sched/syscalls.c:624': [55006, 55006],
  'kernel/sched/syscalls.c:625': [55006, 30006],
  'kernel/sched/syscalls.c:629': [25000, 0],
  'kernel/sched/syscalls.c:631': [25000, 0],
  'kernel/sched/syscalls.c:633': [25000, 0],
  'kernel/sched/syscalls.c:675': [30006, 0],
  'kernel/sched/syscalls.c:906': [45000, 0],
  'kernel/sched/syscalls.c:908': [45000, 0],
  'kernel/sched/syscalls.c:930': [10006, 0],
  'kernel/sched/syscalls.c:936': [10006, 0],
  'kernel/sched/syscalls.c:946': [10006, 0],
  'kernel/sched/syscalls.c:985': [10000, 0],
  'kernel/sched/syscalls.c:1015': [10006, 0],
  'kernel/sched/syscalls.c:1019': [10006, 0],
  'kernel/sched/syscalls.c:1022': [10006, 0],
  'kernel/sched/syscalls.c:1028': [10006, 0],
  'kernel/sched/syscalls.c:1049': [50030, 0],
  'kernel/sched/syscalls.c:1117': [50004, 0],
  'kernel/sched/syscalls.c:1232': [11009, 0],
  'kernel/sched/syscalls.c:1236': [11009, 0],
  'kernel/sched/syscalls.c:1280': [11009, 0],
  'kernel/sched/syscalls.c:1283': [11009, 0],
  'kernel/sched/syscalls.c:1293': [11009, 0],
  'mm/mincore.c:117': [10002, 0],
  'mm/mincore.c:160': [10002, 10002],
  'mm/mincore.c:193': [10002, 0],
  'mm/mincore.c:196': [10002, 0],
  'mm/mincore.c:202': [10002, 0],
  'mm/mincore.c:241': [10002, 0],
  'mm/mincore.c:245': [10002, 0],
  'mm/mincore.c:252': [10002, 0],
  'fs/select.c:303': [25250, 0],
  'fs/select.c:306': [25250, 0],
  'fs/select.c:310': [25250, 25250],
  'fs/select.c:390': [75750, 25250],
  'fs/select.c:400': [75750, 25250],
  'fs/select.c:432': [25250, 250],
  'fs/select.c:433': [250, 250],
  'fs/select.c:442': [378750, 375000],
  'fs/select.c:444': [3750, 0],
  'fs/select.c:446': [3750, 3750],
  'fs/select.c:490': [25250, 0],
  'fs/select.c:519': [4000, 0],
  'fs/select.c:526': [251500, 250],
  'fs/select.c:528': [251250, 1250],
  'fs/select.c:634': [25250, 0],
  'fs/select.c:660': [25250, 0],
  'fs/select.c:670': [25250, 0],
  'fs/select.c:680': [25250, 0],
  'fs/select.c:684': [25250, 0],
  'fs/select.c:752': [25250, 0],
  'fs/select.c:757': [25250, 0],
  'fs/select.c:800': [25250, 0],
};

/** `file:line` -> why flow conservation refuses it. */
const REFUSED: Record<string, RegExp> = {
  'kernel/sched/syscalls.c:611': /line \d+ of the flow past the if has no count/,
  'kernel/sched/syscalls.c:688': /the condition calls a function, so gcov.s \d+ for line \d+ may count re-entries, and \d+ arcs do not give the executions/,
  'kernel/sched/syscalls.c:912': /line \d+ of the flow past the if has no count/,
  'kernel/sched/syscalls.c:1054': /line \d+ of the flow past the if has no count/,
  'kernel/sched/syscalls.c:1080': /the macro block scoped_guard\(\.\.\.\) at line \d+ after it may loop/,
  'kernel/sched/syscalls.c:1085': /line \d+ of the flow past the if has no count/,
  'kernel/sched/syscalls.c:1135': /the condition calls a function, so gcov.s \d+ for line \d+ may count re-entries, and \d+ arcs do not give the executions/,
  'kernel/sched/syscalls.c:1155': /the macro block scoped_guard\(\.\.\.\) at line \d+ after it may loop/,
  'kernel/sched/syscalls.c:1161': /line \d+ of the flow past the if has no count/,
  'kernel/sched/syscalls.c:1195': /the condition calls a function, so gcov.s \d+ for line \d+ may count re-entries, and \d+ arcs do not give the executions/,
  'mm/mincore.c:256': /line \d+ of the flow past the if has no count/,
  'mm/mincore.c:269': /the flow past the if \(line \d+ = \d+\) does not fit \d+ executions/,
  'mm/mincore.c:271': /the condition calls a function, so gcov.s \d+ for line \d+ may count re-entries, and \d+ arcs do not give the executions/,
  'fs/select.c:576': /the condition calls a function, so gcov.s \d+ for line \d+ may count re-entries, and \d+ arcs do not give the executions/,
  'fs/select.c:740': /line \d+ of the flow past the if has no count/,
};

/** Line counts of the three files, read straight from gcov's JSON and summed over the documents that list them. */
function lineCounts(): Map<string, Map<number, number>> {
  const out = new Map<string, Map<number, number>>();
  for (const json of ['kernel/sched/build_policy.gcov.json.gz', 'mm/mincore.gcov.json.gz', 'fs/select.gcov.json.gz']) {
    const doc = JSON.parse(gunzipSync(readFileSync(join(DIR, json))).toString('utf8')) as GcovJson;
    for (const f of doc.files) {
      const file = FILES.find((x) => f.file.endsWith(`/${x}`) || f.file === x);
      if (!file) continue;
      const m = out.get(file) ?? new Map<number, number>();
      for (const l of f.lines) m.set(l.line_number, (m.get(l.line_number) ?? 0) + l.count);
      out.set(file, m);
    }
  }
  return out;
}

let rowsCache: JsonRow[] | null = null;
async function rows(tree: string): Promise<JsonRow[]> {
  if (!rowsCache) {
    const paths = FILES.flatMap((f) => ['--path', f]);
    const r = await hintlab(['hints', `profiles=${DIR}`, '--src', tree, ...paths, '--format', 'json', '--min-hits', '1', '--min-bias', '0.51']);
    assert.equal(r.code, 0, r.stderr);
    rowsCache = (JSON.parse(r.stdout) as { rows: JsonRow[] }).rows;
  }
  return rowsCache;
}

describe('early exits on a 6.12 syscall-workload profile', { skip }, () => {
  test('the listed early exits are exactly those the workload reached', async () => {
    const tree = testKernelTree();
    const counts = lineCounts();
    const parser = await cParser();
    const reached: string[] = [];
    for (const file of FILES) {
      const sites = scanSource(parser, file, readFileSync(join(tree, file), 'utf8')).sites;
      for (const s of sites) if (s.layout.flow && (counts.get(file)?.get(s.line) ?? 0) > 0) reached.push(`${file}:${s.line}`);
    }
    assert.deepEqual(reached.sort(), [...Object.keys(COUNTED), ...Object.keys(REFUSED)].sort());
  });

  test('every reached early exit the rules do not refuse gets its then-branch count from the counts', async () => {
    const all = await rows(testKernelTree());
    for (const [site, [executions, then]] of Object.entries(COUNTED)) {
      const r = all.find((x) => `${x.file}:${x.line}` === site);
      assert.deepEqual([r?.executions, r?.thenCount], [executions, then], `${site}: ${r?.methods.join('; ') ?? 'no row'}`);
      assert.ok(r?.confidence === 'lines' || r?.confidence === 'flow', `${site}: ${r?.confidence}`);
    }
  });

  test('the refused ones say why', async () => {
    const all = await rows(testKernelTree());
    for (const [site, why] of Object.entries(REFUSED)) {
      const r = all.find((x) => `${x.file}:${x.line}` === site);
      assert.equal(r?.verdict.reason, 'direction-unknown', site);
      assert.match(r.verdict.detail ?? '', why, site);
    }
  });
});

/**
 * Hand-built `hintlab codegen --json` and `hintlab hints --format json`
 * documents, written as the JSON those commands print (plain objects, not
 * typed values), so the report tests also go through the loaders. Numbers
 * are chosen so the expected sentences can be worked out by hand.
 */
import { codegenFromJson } from '../../src/codegen/document.ts';
import { hintsFromJson } from '../../src/hints/document.ts';
import type { PatchDocuments } from '../../src/report/patch-evidence.ts';

const GCC = { command: 'gcc', label: 'gcc 12.2.0', family: 'gcc', version: '12.2.0' };

/**
 * mm/mincore.o at gcc -O2: __do_sys_mincore keeps its 60 instructions but
 * moves 3 of them to .cold, and the fall-through path shrinks 21 -> 18;
 * -Os identical; clang-15 not installed.
 */
export function codegenJson(fn = '__do_sys_mincore'): Record<string, unknown> {
  return {
    schema: 1,
    subject: { kind: 'kernel', tree: '/src/linux-6.12', patch: 'mincore.patch', object: 'mm/mincore.o', config: { kind: 'tree', path: '/src/linux-6.12/.config' } },
    notes: ['-O3 is built with KCFLAGS=-O3 on top of the tree\'s -O2'],
    cells: [
      {
        state: 'compared',
        compiler: GCC,
        opt: 'O2',
        functions: [
          {
            name: fn,
            class: 'layout',
            instructions: { before: 60, after: 60 },
            sizeBytes: { before: 200, after: 200 },
            coldInstructions: { before: 0, after: 3 },
            fallThrough: { before: { end: 'return', instructions: 21 }, after: { end: 'return', instructions: 18 } },
            diff: '@@ -1,2 +1,2 @@\n-\tjne .L2\n+\tje .L2\n',
          },
          { name: 'mincore_pte_range', class: 'identical', instructions: 80, sizeBytes: 300 },
        ],
      },
      {
        state: 'compared',
        compiler: GCC,
        opt: 'Os',
        functions: [
          { name: fn, class: 'identical', instructions: 50, sizeBytes: 150 },
          { name: 'mincore_pte_range', class: 'identical', instructions: 70, sizeBytes: 250 },
        ],
      },
      { state: 'skipped', compilerCommand: 'clang-15', opt: 'O2', reason: 'clang-15 is not installed' },
    ],
  };
}

interface RowSpec {
  file: string;
  line: number;
  fn: string;
  executions: number | null;
  thenCount: number | null;
  verdict: Record<string, unknown>;
  evidence?: { workload: string; executions: number; thenCount: number }[];
  confidence?: string;
}

/** One row as `hintlab hints --format json` writes it. */
export function row(spec: RowSpec): Record<string, unknown> {
  const confidence = spec.confidence ?? 'lines';
  const evidence =
    spec.evidence ??
    (spec.executions === null ? [] : [{ workload: 'syscalls', executions: spec.executions, thenCount: spec.thenCount as number }]);
  return {
    file: spec.file,
    line: spec.line,
    function: spec.fn,
    condition: 'n < 0',
    annotation: spec.verdict.kind === 'contradicted' ? spec.verdict.macro : null,
    executions: spec.executions,
    thenCount: spec.thenCount,
    confidence,
    methods: [`then-branch line ${spec.line + 1}`],
    evidence: evidence.map((e) => ({ ...e, confidence })),
    verdict: spec.verdict,
  };
}

/** A whole hints document around `rows`. */
export function hintsJson(rows: Record<string, unknown>[], mode: 'profile' | 'static' = 'profile'): Record<string, unknown> {
  return {
    format: 'hintlab-hints',
    version: 1,
    generatedBy: 'hintlab 0.1.0',
    mode,
    root: '/src/linux-6.12',
    thresholds: { minBias: 0.99, minHits: 1000 },
    workloads: mode === 'static' ? [] : [{ name: 'syscalls', files: ['/cov/syscalls'], outsideSourceTree: [] }],
    sources: [{ file: 'fs/select.c', sha256: '0'.repeat(64) }],
    rows,
    quiet: { balanced: 4, fewExecutions: 2, notReached: 9 },
    sitesTotal: 20,
    macroIfs: [],
    unmatchedProfilerRows: [],
  };
}

/**
 * Two rows the hint patch changes (listed in the document coldest first, so
 * the report must sort them) and two it does not.
 */
export function hintRows(): Record<string, unknown>[] {
  return [
    // 0 of 2000: the fs/select.c example of the issue.
    row({ file: 'fs/select.c', line: 635, fn: 'core_sys_select', executions: 2000, thenCount: 0, verdict: { kind: 'propose', hint: 'unlikely' } }),
    // 4990 of 5000 = 99.80 % under unlikely(): contradicted, fix likely().
    row({
      file: 'kernel/sched/syscalls.c',
      line: 712,
      fn: 'sched_getattr',
      executions: 5000,
      thenCount: 4990,
      confidence: 'profiler',
      verdict: { kind: 'contradicted', claimed: 'unlikely', macro: 'unlikely', claimedShare: 0.002, fix: 'likely' },
    }),
    row({ file: 'fs/read_write.c', line: 10, fn: 'ksys_read', executions: 9000, thenCount: 0, verdict: { kind: 'skip', reason: 'already-annotated', detail: 'unlikely() holds in 100.00%' } }),
    row({
      file: 'mm/mmap.c',
      line: 20,
      fn: 'do_mmap',
      executions: 8000,
      thenCount: 4000,
      verdict: { kind: 'contradicted', claimed: 'likely', macro: '__builtin_expect', claimedShare: 0.5, fix: null },
    }),
  ];
}

/** Both documents through the loaders, as the CLI would pass them. */
export function evidence(hints = hintsJson(hintRows()), codegen = codegenJson()): PatchDocuments {
  return {
    codegen: { file: 'codegen.json', result: codegenFromJson(codegen, 'codegen.json') },
    hints: { file: 'hints.json', doc: hintsFromJson(hints, 'hints.json') },
  };
}

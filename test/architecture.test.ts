/**
 * The house's floors, checked on the source itself (docs/architecture.md):
 * the import statements of src/**\/*.ts and the #include lines and
 * cross-file symbol uses of probes/*.c. A module may import its own floor
 * and the floors below, never above; nothing but src/cli imports src/cli;
 * no import circle in src/; no circle among the probe's files.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');
const PROBES = join(ROOT, 'probes');

/**
 * The floors, bottom first. A module is a top-level file or directory of
 * src/; it may import modules on its own floor or below. Keep in step with
 * docs/architecture.md.
 */
const FLOORS: readonly (readonly string[])[] = [
  ['errors.ts', 'model.ts', 'run-record.ts', 'version.ts', 'shell.ts', 'json-shape.ts', 'write-file.ts', 'gunzip.ts', 'cost-counters.ts', 'format', 'environment', 'stats'],
  ['store', 'proc'],
  // what a target needs to start a job: the probe binary, its line protocol, qemu and its initramfs
  ['launch'],
  ['targets'],
  ['bench', 'kernel', 'compare', 'codegen', 'macro'],
  ['vm', 'hints', 'session', 'behave', 'trial', 'bisect'],
  ['report'],
  ['cli'],
];

function filesUnder(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, ext));
    else if (name.endsWith(ext)) out.push(path);
  }
  return out.sort();
}

/** Relative imports of a TypeScript file (static `import`/`export ... from` and dynamic `import('...')`), resolved to paths under src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => m[1] ?? m[2]!);
  return specs.filter((s) => s.startsWith('.')).map((s) => relative(SRC, resolve(dirname(file), s)));
}

/** The module a path under src/ belongs to: the file itself when a floor names it, else its first path segment. */
function moduleOf(pathUnderSrc: string): string {
  if (FLOORS.some((f) => f.includes(pathUnderSrc))) return pathUnderSrc;
  return pathUnderSrc.split('/')[0]!;
}

function floorOf(module: string): number {
  const i = FLOORS.findIndex((f) => f.includes(module));
  assert.notEqual(i, -1, `src/${module} is on no floor: add it to FLOORS in test/architecture.test.ts and to docs/architecture.md`);
  return i;
}

/** The graph of src/: file (relative to src/) -> the files it imports. */
function srcGraph(): Map<string, string[]> {
  return new Map(filesUnder(SRC, '.ts').map((f) => [relative(SRC, f), importsOf(f)]));
}

/** A circle in `graph`, as the list of its nodes with the first repeated at the end, or null. */
function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === 'done') return null;
    if (state.get(node) === 'open') return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

test('the cycle finder finds a circle and passes a tree', () => {
  assert.deepEqual(findCycle(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']]])), ['a', 'b', 'c', 'a']);
  assert.equal(findCycle(new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []]])), null);
});

test('the import parser sees static, re-exporting and dynamic imports', () => {
  const graph = srcGraph();
  const all = [...graph.values()].flat();
  assert.ok(all.length > 300, `only ${all.length} imports found in src/: the parser misses some`);
  assert.ok(graph.get('cli/main.ts')?.some((p) => p.startsWith('cli/')), 'cli/main.ts imports its commands');
});

test('nothing outside src/cli imports src/cli', () => {
  const bad = [...srcGraph()].flatMap(([file, imports]) =>
    moduleOf(file) === 'cli' ? [] : imports.filter((p) => moduleOf(p) === 'cli').map((p) => `src/${file} imports src/${p}`),
  );
  assert.deepEqual(bad, []);
});

test('no import circle in src/', () => {
  const cycle = findCycle(srcGraph());
  assert.equal(cycle, null, `import circle: ${cycle?.map((f) => `src/${f}`).join(' -> ')}`);
});

test('every module imports only its own floor and the floors below', () => {
  const bad: string[] = [];
  for (const [file, imports] of srcGraph()) {
    const from = floorOf(moduleOf(file));
    for (const p of imports) {
      const to = floorOf(moduleOf(p));
      if (to > from) bad.push(`src/${file} (floor ${from}) imports src/${p} (floor ${to})`);
    }
  }
  assert.deepEqual(bad, []);
});

test('the bottom floor imports nothing but the bottom floor and node:', () => {
  const bottom = new Set(FLOORS[0]);
  const bad = [...srcGraph()].flatMap(([file, imports]) =>
    bottom.has(moduleOf(file)) ? imports.filter((p) => !bottom.has(moduleOf(p))).map((p) => `src/${file} imports src/${p}`) : [],
  );
  assert.deepEqual(bad, []);
});

/** Local #include "x.h" lines of every file in probes/ (not its supervise/ subdirectory, a program of its own). */
function includeGraph(): Map<string, string[]> {
  const files = readdirSync(PROBES).filter((f) => /\.[ch]$/.test(f));
  return new Map(files.map((f) => [f, [...readFileSync(join(PROBES, f), 'utf8').matchAll(/^#include "([^"]+)"/gm)].map((m) => m[1]!)]));
}

/**
 * Which .c file of probes/ uses which other: a file uses another when it
 * names a function or variable the other defines at file scope without
 * `static`. A circle here is two files calling each other.
 */
function linkGraph(): Map<string, string[]> {
  const sources = readdirSync(PROBES).filter((f) => f.endsWith('.c'));
  const text = new Map(sources.map((f) => [f, readFileSync(join(PROBES, f), 'utf8')]));
  const definedIn = new Map<string, string>();
  for (const [file, src] of text) {
    // a definition starts at column 0, is not static, and is followed by its body or an initializer
    for (const m of src.matchAll(/^(?!static\b|extern\b|#|\s|\/|\*|\}|typedef\b|struct\s+\w+\s*\{)[^;(=\n]*?\b(\w+)\s*(?:\([^;]*?\)\s*\n\{|(?:\[\])?\s*(?:=|;))/gm)) {
      definedIn.set(m[1]!, file);
    }
  }
  const graph = new Map<string, string[]>();
  for (const [file, src] of text) {
    // comments name things without using them ("the main thread")
    const code = src.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/.*$/gm, ' ');
    const words = new Set(code.match(/\b\w+\b/g) ?? []);
    graph.set(file, [...new Set([...definedIn].filter(([name, at]) => at !== file && words.has(name)).map(([, at]) => at))]);
  }
  return graph;
}

test('the probe\'s #include graph has no circle', () => {
  const graph = includeGraph();
  assert.ok(graph.get('main.c')?.includes('emit.h'), 'main.c includes emit.h');
  const cycle = findCycle(graph);
  assert.equal(cycle, null, `#include circle in probes/: ${cycle?.join(' -> ')}`);
});

test('no two files of the probe call each other (emit, esc and stop_requested live in emit.c)', () => {
  const graph = linkGraph();
  assert.deepEqual(graph.get('plan.c')?.sort(), ['emit.c'], 'plan.c uses only emit.c');
  assert.ok(graph.get('main.c')?.includes('plan.c'), 'main.c uses plan.c (run_plan)');
  assert.ok(graph.get('profiles_threads.c')?.includes('state.c'), 'profiles_threads.c uses state.c (pin_thread_to)');
  const cycle = findCycle(graph);
  assert.equal(cycle, null, `files of probes/ use each other in a circle: ${cycle?.join(' -> ')}`);
});

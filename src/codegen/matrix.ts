/**
 * Run the compiler x optimization-level matrix: build every cell's object
 * before and after, disassemble both, classify every function. Building is
 * behind `ObjectSource` (plain C files in files.ts, a kernel tree in
 * kernel-source.ts) so the matrix logic is the same for both.
 */
import { compareObjects } from './classify.ts';
import { probeCompiler, type CompilerProbe } from './compilers.ts';
import { normalizeObject } from './normalize.ts';
import { readObject } from './objdump.ts';
import type { Cell, CodegenResult, CodegenSubject, CompilerInfo, OptLevel } from './types.ts';
import { CODEGEN_SCHEMA } from './types.ts';

export type Variant = 'before' | 'after';

export type BuildOutcome = { state: 'built'; objectPath: string } | { state: 'failed'; errorLines: string[] };

/** Where the objects come from. `enter` switches the sources to a variant; every build of that variant follows it. */
export interface ObjectSource {
  readonly subject: CodegenSubject;
  /** Caveats for the reader, known once the source is set up. */
  readonly notes: string[];
  enter(variant: Variant): Promise<void>;
  build(compiler: CompilerInfo, opt: OptLevel, variant: Variant): Promise<BuildOutcome>;
  /** Undo everything `enter` did; called even after a failure. */
  close(): Promise<void>;
}

export interface MatrixRequest {
  compilers: string[];
  opts: OptLevel[];
  objdump?: string;
  /** Progress lines ("building gcc -O2 after"), for a terminal. */
  progress?: (line: string) => void;
}

type Built = { before?: BuildOutcome; after?: BuildOutcome };

async function buildAll(source: ObjectSource, found: CompilerInfo[], req: MatrixRequest): Promise<Map<string, Built>> {
  const built = new Map<string, Built>();
  for (const variant of ['before', 'after'] as const) {
    await source.enter(variant);
    for (const compiler of found) {
      for (const opt of req.opts) {
        const key = `${compiler.command} ${opt}`;
        const cell = built.get(key) ?? {};
        if (cell.before?.state === 'failed') continue;
        req.progress?.(`building ${compiler.label} -${opt} ${variant}`);
        cell[variant] = await source.build(compiler, opt, variant);
        built.set(key, cell);
      }
    }
  }
  return built;
}

async function compareCell(compiler: CompilerInfo, opt: OptLevel, built: Built, objdump?: string): Promise<Cell> {
  for (const variant of ['before', 'after'] as const) {
    const b = built[variant];
    if (b?.state === 'failed') return { state: 'failed', compiler, opt, variant, errorLines: b.errorLines };
  }
  if (built.before?.state !== 'built' || built.after?.state !== 'built') throw new Error('cell was not built');
  const [before, after] = await Promise.all([readObject(built.before.objectPath, objdump), readObject(built.after.objectPath, objdump)]);
  return { state: 'compared', compiler, opt, functions: compareObjects(normalizeObject(before), normalizeObject(after)) };
}

/** Build, disassemble and classify every cell. Objects are read right after all builds, before `close`. */
export async function runMatrix(source: ObjectSource, req: MatrixRequest): Promise<CodegenResult> {
  const probes: CompilerProbe[] = await Promise.all(req.compilers.map((c) => probeCompiler(c)));
  const found = probes.flatMap((p) => (p.state === 'found' ? [p.info] : []));
  const cells: Cell[] = [];
  try {
    const built = found.length > 0 ? await buildAll(source, found, req) : new Map<string, Built>();
    for (const probe of probes) {
      for (const opt of req.opts) {
        if (probe.state === 'missing') cells.push({ state: 'skipped', compilerCommand: probe.command, opt, reason: probe.reason });
        else cells.push(await compareCell(probe.info, opt, built.get(`${probe.info.command} ${opt}`) ?? {}, req.objdump));
      }
    }
  } finally {
    await source.close();
  }
  return { schema: CODEGEN_SCHEMA, subject: source.subject, notes: source.notes, cells };
}

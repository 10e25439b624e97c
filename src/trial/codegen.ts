/**
 * A trial's codegen step: the object code of the objects the patch
 * touches, read from the very builds that are booted and measured (A's and
 * B's object directories), so the compiler, flags and configuration are
 * theirs by construction. Nothing is compiled here: the ObjectSource hands
 * runMatrix the two builds' objects, which objdump then reads.
 *
 * A header can reach hundreds of objects. Objects whose bytes are the same
 * in A and B are identical without a disassembly; of the others at most
 * `limit` are compared (closest to the patch first, src/trial/objects.ts)
 * and the rest are named as not compared.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runMatrix, type BuildOutcome, type ObjectSource, type Variant } from '../codegen/matrix.ts';
import type { CodegenResult, CodegenSubject } from '../codegen/types.ts';
import type { OptLevel } from '../kernel/manifest.ts';
import { objectsTouching, type Reach } from './objects.ts';

/** One build as the codegen step reads it. */
export interface BuiltObjects {
  label: string;
  /** make's object directory. */
  obj: string;
  /** The tree copy the objects were compiled from (its patches applied). */
  tree: string;
}

export interface CodegenInput {
  a: BuiltObjects;
  b: BuiltObjects;
  /** Files the patches touch, relative to the tree. */
  files: string[];
  opt: OptLevel;
  /** The compiler command the builds used (`gcc`). */
  compiler: string;
  /** Subject fields of every document: the user's tree, the patches, the configuration A was built with. */
  subject: { tree: string; patch: string; config: string };
  /** Objects disassembled at most. */
  limit: number;
}

export type ObjectState = 'compared' | 'identical-bytes' | 'not-compared' | 'only-in-A' | 'only-in-B';

export interface ObjectCodegen {
  object: string;
  reach: Reach;
  files: string[];
  state: ObjectState;
  /** The codegen document of a compared object. */
  result?: CodegenResult;
}

export interface TrialCodegen {
  compiler: string;
  opt: OptLevel;
  limit: number;
  files: string[];
  objects: ObjectCodegen[];
}

/** The two builds' copies of one object, as the before and after of a one-cell matrix. */
class BuiltObjectSource implements ObjectSource {
  readonly notes: string[];
  constructor(
    readonly subject: CodegenSubject,
    private readonly paths: Record<Variant, string>,
    a: BuiltObjects,
    b: BuiltObjects,
  ) {
    this.notes = [`the objects of the measured kernels, before: ${a.label} (${a.obj}), after: ${b.label} (${b.obj})`];
  }
  async enter(): Promise<void> {}
  build(_compiler: unknown, _opt: unknown, variant: Variant): Promise<BuildOutcome> {
    return Promise.resolve({ state: 'built', objectPath: this.paths[variant] });
  }
  async close(): Promise<void> {}
}

function sameBytes(x: string, y: string): boolean {
  return readFileSync(x).equals(readFileSync(y));
}

/** Classify and, up to the limit, compare every object the patched files reach in A or B. */
export async function trialCodegen(input: CodegenInput): Promise<TrialCodegen> {
  const byName = new Map<string, { reach: Reach; files: string[] }>();
  for (const side of [input.b, input.a]) {
    for (const t of objectsTouching(side.obj, side.tree, input.files)) if (!byName.has(t.object)) byName.set(t.object, t);
  }
  const objects: ObjectCodegen[] = [];
  let compared = 0;
  for (const [object, t] of byName) {
    const before = join(input.a.obj, object);
    const after = join(input.b.obj, object);
    const base = { object, reach: t.reach, files: t.files };
    if (!existsSync(before) || !existsSync(after)) objects.push({ ...base, state: existsSync(after) ? 'only-in-B' : 'only-in-A' });
    else if (sameBytes(before, after)) objects.push({ ...base, state: 'identical-bytes' });
    else if (compared >= input.limit) objects.push({ ...base, state: 'not-compared' });
    else {
      compared++;
      const subject: CodegenSubject = { kind: 'kernel', tree: input.subject.tree, patch: input.subject.patch, object, config: { kind: 'file', path: input.subject.config } };
      const result = await runMatrix(new BuiltObjectSource(subject, { before, after }, input.a, input.b), { compilers: [input.compiler], opts: [input.opt] });
      objects.push({ ...base, state: 'compared', result });
    }
  }
  return { compiler: input.compiler, opt: input.opt, limit: input.limit, files: input.files, objects };
}

/**
 * The codegen document: how a patch changes the object code of one object,
 * function by function, in every cell of a compiler x optimization-level
 * matrix. Computed once by `runCodegen()` (src/codegen/matrix.ts); the text,
 * JSON and lkml renderers (src/codegen/render.ts) only format it.
 *
 * Format history (CODEGEN_SCHEMA):
 *   1: first version.
 *   2: the function class `padding`: the same instructions in the same
 *      order, only alignment nops (and so the offsets after them) differ.
 *      A version 1 document is a valid version 2 document and still loads.
 */

export const CODEGEN_SCHEMA = 2;

/** Optimization levels the matrix knows how to build. */
export type OptLevel = 'O2' | 'Os' | 'O3';
export const OPT_LEVELS: readonly OptLevel[] = ['O2', 'Os', 'O3'];

/** What an instruction does to control flow; everything the classifier needs to know. */
export type InsnKind =
  | 'nop' // padding or alignment: dropped when comparing placement
  | 'cond-branch' // jCC to a label of the same function
  | 'jump' // unconditional jump to a label of the same function
  | 'return' // ret, or a jump to the return thunk
  | 'tail-call' // unconditional jump leaving the function (another symbol, indirect)
  | 'trap' // ud2, int3: execution does not continue
  | 'other';

/** Which part of a function an instruction sits in: gcc moves cold blocks to `func.cold`. */
export type FunctionPart = 'main' | 'cold';

/** One normalized instruction: no addresses, labels and symbols instead. */
export interface NormInsn {
  /** Normalized text, e.g. `jne .L2` or `call filemap_get_incore_folio`. */
  text: string;
  kind: InsnKind;
  /** For cond-branch and jump: the index of the target instruction in `NormFunction.insns`. */
  targetIndex?: number;
  /** The label defined at this instruction (`.L3`), when something branches here. */
  label?: string;
  part: FunctionPart;
  sizeBytes: number;
}

/** A function of an object, its `.cold` part appended after its main part. */
export interface NormFunction {
  /** Normalized name (`foo.isra`, not `foo.isra.0`): the key across before/after. */
  name: string;
  /** The symbol names as they appear in the object (`foo.isra.0`, `foo.isra.0.cold`). */
  symbols: string[];
  section: string;
  insns: NormInsn[];
  sizeBytes: number;
}

/** The end of the straight-line path from the entry when no conditional branch is taken. */
export type FallThroughPath =
  | { end: 'return'; instructions: number }
  | { end: 'tail-call'; instructions: number; target: string }
  | { end: 'trap' | 'loop' | 'falls-off-end'; instructions: number };

/** How one function differs between the before and after objects of one cell. */
export type FunctionDelta =
  | { name: string; class: 'identical'; instructions: number; sizeBytes: number }
  | {
      name: string;
      class: 'layout' | 'changed';
      instructions: { before: number; after: number };
      sizeBytes: { before: number; after: number };
      /** Instructions in the `.cold` part, before and after. */
      coldInstructions: { before: number; after: number };
      fallThrough: { before: FallThroughPath; after: FallThroughPath };
      /** Unified diff of the normalized assembly, a few lines of context. */
      diff: string;
    }
  | {
      name: string;
      /** Only alignment nops differ: identical code, shown apart from a real layout change. */
      class: 'padding';
      instructions: { before: number; after: number };
      sizeBytes: { before: number; after: number };
      diff: string;
    }
  | { name: string; class: 'added' | 'removed'; instructions: number; sizeBytes: number };

/** A compiler as the user named it (`clang-14`) and as it describes itself. */
export interface CompilerInfo {
  command: string;
  /** `gcc 12.2.0`, `clang 14.0.6`. */
  label: string;
  family: 'gcc' | 'clang' | 'other';
  version: string;
}

/** One cell of the matrix: a compiler at an optimization level. */
export type Cell =
  | { state: 'compared'; compiler: CompilerInfo; opt: OptLevel; functions: FunctionDelta[] }
  | { state: 'skipped'; compilerCommand: string; opt: OptLevel; reason: string }
  | { state: 'failed'; compiler: CompilerInfo; opt: OptLevel; variant: 'before' | 'after'; errorLines: string[] };

/** Where the kernel configuration of a kernel-tree run came from. */
export type ConfigSource =
  | { kind: 'tree'; path: string }
  | { kind: 'file'; path: string }
  | { kind: 'defconfig' };

/** What was compared: two plain C files, or a kernel object before and after a patch. */
export type CodegenSubject =
  | { kind: 'files'; before: string; after: string; cflags: string[] }
  | { kind: 'kernel'; tree: string; patch: string; object: string; config: ConfigSource };

export interface CodegenResult {
  schema: 1 | typeof CODEGEN_SCHEMA;
  subject: CodegenSubject;
  /** Caveats the reader must see (how -O3 was built, which config was used). */
  notes: string[];
  cells: Cell[];
}

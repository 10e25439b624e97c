/**
 * Reading the branch set `hints collect --exact` writes (`branches.json`,
 * format 'hintlab-branches' version 1): every conditional jump the
 * workload ran in the kernel as built, how often it jumped and fell
 * through, and where it, its target and its fall-through lie in the source
 * (each an `addr2line -i` chain, innermost frame first).
 */
import { readFileSync } from 'node:fs';
import { UserError } from '../errors.ts';
import { checkDocument, count, each, oneOf, record, string, type JsonRecord } from '../json-shape.ts';
import { BRANCHES_FORMAT, BRANCHES_VERSION } from './collect/exact-set.ts';
import type { InlineFrame } from '../vm/dwarf-lines.ts';


/** Where one way of a jump leads. */
export interface Destination {
  addr: bigint;
  at: InlineFrame[];
}

/** One conditional jump and its directions, summed over the workload. */
export interface ExactJump {
  addr: bigint;
  function: string;
  offset: number;
  /** objdump's text of the jump, when the set has it. */
  insn: string | null;
  taken: number;
  fell: number;
  at: InlineFrame[];
  target: Destination;
  next: Destination;
}

export interface BranchSet {
  /** The file read, for messages. */
  source: string;
  release: string;
  vmlinux: string;
  lineTable: boolean;
  windows: number;
  jumps: ExactJump[];
}

const WHAT = 'a hintlab branch set (branches.json)';
const FIX = 'collect one with `hintlab hints collect --exact`';

function hex(v: unknown, where: string): bigint {
  const s = string(v, where);
  if (!/^[0-9a-f]{1,16}$/.test(s)) throw new UserError(`${where}: expected a hex address without 0x, got '${s.slice(0, 40)}'`);
  return BigInt(`0x${s}`);
}

function frames(v: unknown, where: string): InlineFrame[] {
  return each(v, where, (f, at) => {
    const r = record(f, at);
    return { function: string(r.function, `${at}.function`), file: string(r.file, `${at}.file`), line: count(r.line, `${at}.line`) };
  });
}

function destination(v: unknown, where: string): Destination {
  const r = record(v, where);
  return { addr: hex(r.addr, `${where}.addr`), at: frames(r.at, `${where}.at`) };
}

function jump(v: unknown, where: string): ExactJump {
  const r = record(v, where);
  return {
    addr: hex(r.addr, `${where}.addr`),
    function: string(r.function, `${where}.function`),
    offset: count(r.offset, `${where}.offset`),
    insn: r.insn === undefined ? null : string(r.insn, `${where}.insn`),
    taken: count(r.taken, `${where}.taken`),
    fell: count(r.fell, `${where}.fell`),
    at: frames(r.at, `${where}.at`),
    target: destination(r.target, `${where}.target`),
    next: destination(r.next, `${where}.next`),
  };
}

function branchSet(doc: JsonRecord, source: string): BranchSet {
  oneOf(doc.format, [BRANCHES_FORMAT], 'format');
  if (doc.version !== BRANCHES_VERSION) {
    throw new UserError(`${source}: branch set version ${JSON.stringify(doc.version)}; this hintlab reads version ${BRANCHES_VERSION} (collect it again)`);
  }
  const kernel = record(doc.kernel, 'kernel');
  return {
    source,
    release: string(kernel.release, 'kernel.release'),
    vmlinux: string(kernel.vmlinux, 'kernel.vmlinux'),
    lineTable: kernel.lineTable === true,
    windows: count(doc.windows, 'windows'),
    jumps: each(doc.branches, 'branches', jump),
  };
}

/** Whether a file's first bytes are a branch set (a JSON object naming this format). */
export function looksLikeBranchSet(head: string): boolean {
  return /^\s*\{[\s\S]*"format"\s*:\s*"hintlab-branches"/.test(head);
}

/** Read and check a branch set; a set without line tables cannot place any jump and is refused. */
export function readBranchSet(file: string): BranchSet {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UserError(`${file}: not JSON (${(err as Error).message}); ${FIX}`);
  }
  const set = checkDocument(doc, file, WHAT, FIX, (r) => branchSet(r, file));
  if (!set.lineTable) {
    throw new UserError(`${file}: the kernel ${set.vmlinux} has no DWARF line table, so no jump can be placed at an \`if\`; collect from a kernel built by hintlab (its fragment adds debug info)`);
  }
  return set;
}

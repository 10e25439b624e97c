/**
 * Source lines of code addresses, from an ELF file's DWARF line table:
 * binutils' `addr2line -a -f -i`, every address of a boot in one call
 * (addresses on its standard input), which on a 6.12 vmlinux reads the
 * line table once. The innermost inlined frame gives the line (the
 * condition's own line in an inlined helper); paths are made relative to
 * the build's tree, so the same line matches in two kernels built in
 * different directories.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { existingLayout } from '../kernel/layout.ts';
import type { Known } from '../model.ts';

/** Where a code address's source is. */
export interface SourcePlace {
  /** Relative to the build's tree: `kernel/sched/syscalls.c`. */
  file: string;
  line: number;
  /** The inlined function the code came from, when it is not the symbol's own. */
  inlined?: string;
}

/** Where an image's vmlinux (with its symbols and, when built so, DWARF) is, and the roots its paths start with. */
export interface DebugElf {
  path: string;
  /** Directories stripped from the front of source paths (the tree copy, make's object directory). */
  roots: string[];
}

/** The vmlinux of a `hintlab kernel build` directory holding `image` (or beside it), or why there is none. */
export function vmlinuxFor(image: string): Known<DebugElf> {
  const dir = dirname(image);
  const layout = existingLayout(dir);
  const candidates = [join(dir, 'vmlinux'), join(layout.obj, 'vmlinux')];
  const path = candidates.find((c) => existsSync(c));
  if (!path) return { known: false, reason: `no vmlinux beside ${image} (looked for ${candidates.join(', ')}): branches are placed by function and offset only` };
  return { known: true, value: { path, roots: [layout.obj, layout.tree, dir] } };
}

/** Where a `hintlab kernel build` keeps its tree copy, below its output directory (src/kernel/layout.ts). */
const BUILD_TREE = '/work/src/';

/**
 * `path` relative to the first root it lies in, normalized; else relative
 * to another hintlab build's tree (objects a `--from A` build copied name
 * A's tree); else as is.
 */
export function relativeSource(path: string, roots: readonly string[]): string {
  const p = normalize(path);
  for (const r of roots) {
    const root = normalize(`${r}/`);
    if (p.startsWith(root)) return p.slice(root.length);
  }
  const tree = p.lastIndexOf(BUILD_TREE);
  return tree >= 0 ? p.slice(tree + BUILD_TREE.length) : p;
}

/** One frame of an address's inline chain: the function its code belongs to, and the line there. */
export interface InlineFrame {
  function: string;
  /** Relative to the build's tree, like SourcePlace's. */
  file: string;
  line: number;
}

interface RawFrame {
  fn: string;
  where: string;
}

const ADDRESS_LINE = /^0x[0-9a-f]+$/i;
const WHERE = /^(.*):(\d+)(?: \(discriminator \d+\))?$/;

/** `addr2line -a -f -i` output split per address: its function and `file:line` lines, innermost frame first. */
function rawFrames(text: string): Map<bigint, RawFrame[]> {
  const all = new Map<bigint, RawFrame[]>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const head = lines[i]!;
    if (!ADDRESS_LINE.test(head)) continue;
    const frames: RawFrame[] = [];
    while (i + 2 < lines.length && !ADDRESS_LINE.test(lines[i + 1]!)) {
      frames.push({ fn: lines[i + 1]!, where: lines[i + 2]! });
      i += 2;
    }
    all.set(BigInt(head), frames);
  }
  return all;
}

/** A frame's file (relative to `roots`) and line; null for `??:0`, `??:?` or `file:?`. */
function frameWhere(where: string, roots: readonly string[]): { file: string; line: number } | null {
  const m = WHERE.exec(where);
  if (!m || m[1] === '??') return null;
  return { file: relativeSource(m[1]!, roots), line: Number(m[2]) };
}

/**
 * Parse `addr2line -a -f -i` output: per address its `0x...` line, then a
 * function and a `file:line` line per frame, innermost first. Frames
 * without a line (`??:0`, `??:?`) give no place.
 */
export function parseAddr2line(text: string, roots: readonly string[]): Map<bigint, SourcePlace> {
  const places = new Map<bigint, SourcePlace>();
  for (const [addr, frames] of rawFrames(text)) {
    const inner = frames[0];
    const at = inner ? frameWhere(inner.where, roots) : null;
    if (!inner || !at) continue;
    const outer = frames[frames.length - 1]!;
    places.set(addr, { ...at, ...(frames.length > 1 && inner.fn !== outer.fn ? { inlined: inner.fn } : {}) });
  }
  return places;
}

/**
 * Parse `addr2line -a -f -i` output into each address's whole inline
 * chain, innermost frame first: frame k's function is the one its code
 * belongs to, and its line is the line there (for k > 0, the line of the
 * inlined call). Frames with no function or no line (`??`) are dropped,
 * and so are discriminators; an address with none left has an empty chain.
 */
export function parseInlineChains(text: string, roots: readonly string[]): Map<bigint, InlineFrame[]> {
  const chains = new Map<bigint, InlineFrame[]>();
  for (const [addr, frames] of rawFrames(text)) {
    chains.set(
      addr,
      frames.flatMap((f) => {
        const at = f.fn === '??' ? null : frameWhere(f.where, roots);
        return at ? [{ function: f.fn, ...at }] : [];
      }),
    );
  }
  return chains;
}

/** addr2line's output for every address (one run), or why it failed. */
function runAddr2line(elf: DebugElf, addrs: readonly bigint[]): Known<string> {
  const input = `${addrs.map((a) => `0x${a.toString(16)}`).join('\n')}\n`;
  const r = spawnSync('addr2line', ['-a', '-f', '-i', '-e', elf.path], { input, encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 });
  if (r.error || r.status !== 0) {
    const why = r.error?.message ?? (r.stderr.trim().split('\n')[0] || `exit ${r.status}`);
    return { known: false, reason: `addr2line -e ${elf.path} failed (${why}); install binutils: branches are placed by function and offset only` };
  }
  return { known: true, value: r.stdout };
}

const noLineTable = (elf: DebugElf): string =>
  `${elf.path} has no DWARF line table (build with debug info: hintlab's fragment sets DEBUG_INFO_DWARF5); branches are placed by function and offset only`;

/**
 * The source place of every address, from one `addr2line` run. Unknown,
 * saying why, when addr2line is missing or the ELF has no line table for
 * any of them (a kernel built without debug info).
 */
export function sourcePlaces(elf: DebugElf, addrs: readonly bigint[]): Known<Map<bigint, SourcePlace>> {
  if (!addrs.length) return { known: true, value: new Map() };
  const out = runAddr2line(elf, addrs);
  if (!out.known) return out;
  const places = parseAddr2line(out.value, elf.roots);
  if (!places.size) return { known: false, reason: noLineTable(elf) };
  return { known: true, value: places };
}

/**
 * The inline chain of every address (parseInlineChains), from one
 * `addr2line` run; unknown, saying why, as sourcePlaces.
 */
export function inlineChains(elf: DebugElf, addrs: readonly bigint[]): Known<Map<bigint, InlineFrame[]>> {
  if (!addrs.length) return { known: true, value: new Map() };
  const out = runAddr2line(elf, addrs);
  if (!out.known) return out;
  const chains = parseInlineChains(out.value, elf.roots);
  if (![...chains.values()].some((c) => c.length > 0)) return { known: false, reason: noLineTable(elf) };
  return { known: true, value: chains };
}

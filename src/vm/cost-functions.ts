/**
 * Cost counters per kernel function: every kernel block a window executed
 * is attributed, by its start address, to the function of the kernel's
 * System.map that contains it (the last text symbol at or below it). The
 * plugin, given the same map's start addresses (syms=), already cut every
 * block where it runs into another symbol (an assembly label inside entry
 * code), so a part lies in one function and is attributed exactly, however
 * qemu cut the blocks in that boot.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Known } from '../model.ts';
import { existingLayout } from '../kernel/layout.ts';
import { FUNCTION_COUNTERS, type FunctionCost, type FunctionCounter, type FunctionCounts } from '../cost-counters.ts';
import type { BlockCounts } from './cost.ts';

export interface KernelSymbol {
  addr: bigint;
  name: string;
  /** Bytes to the next text symbol. */
  size: number;
}

/** Text symbols (t, T, w, W) of a System.map, by address. */
export function parseSystemMap(text: string): KernelSymbol[] {
  const syms = text
    .split('\n')
    .map((l) => l.split(' '))
    .filter((f) => f.length >= 3 && /^[tTwW]$/.test(f[1]!) && /^[0-9a-f]+$/i.test(f[0]!))
    .map((f) => ({ addr: BigInt(`0x${f[0]}`), name: f[2]!, size: 0 }))
    .sort((a, b) => (a.addr < b.addr ? -1 : a.addr > b.addr ? 1 : 0));
  for (let i = 0; i + 1 < syms.length; i++) syms[i]!.size = Number(syms[i + 1]!.addr - syms[i]!.addr);
  return syms;
}

/**
 * The System.map of a kernel image: next to it, in the object directory of
 * a `hintlab kernel build` directory, or Debian's `System.map-<release>`
 * (which in Debian's image packages is a one-line stub, refused here).
 */
export function systemMapFor(image: string): Known<{ path: string; symbols: KernelSymbol[] }> {
  const dir = dirname(image);
  const name = basename(image);
  const candidates = [join(dir, 'System.map'), join(existingLayout(dir).obj, 'System.map')];
  if (name.startsWith('vmlinuz-')) candidates.push(join(dir, `System.map-${name.slice('vmlinuz-'.length)}`));
  for (const path of candidates.filter((c) => existsSync(c))) {
    const symbols = parseSystemMap(readFileSync(path, 'utf8'));
    if (symbols.length >= 100) return { known: true, value: { path, symbols } };
    return { known: false, reason: `${path} has ${symbols.length} text symbols (a stub; Debian ships the real map in the -dbg package)` };
  }
  return { known: false, reason: `no System.map next to ${image} (looked for ${candidates.join(', ')})` };
}

/** The function holding `addr`, or null below the first symbol. */
export function functionAt(symbols: readonly KernelSymbol[], addr: bigint): KernelSymbol | null {
  let lo = 0;
  let hi = symbols.length - 1;
  let found: KernelSymbol | null = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = symbols[mid]!;
    if (s.addr <= addr) {
      found = s;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** A block's count of one per-function counter: a field of its block line, or its instructions times its executions. */
function blockCount(b: BlockCounts, c: FunctionCounter): number {
  return c.perFunction.from === 'instructions' ? b.insns * b.execs : (b.counts[c.perFunction.key] ?? 0);
}

/** Add a window's blocks to `into` (totals over windows, by function name and per-function key). */
export function attributeBlocks(blocks: readonly BlockCounts[], symbols: readonly KernelSymbol[], into: Map<string, FunctionCounts>): void {
  for (const b of blocks) {
    const fn = functionAt(symbols, b.vaddr)?.name ?? '(below the first symbol)';
    const c = into.get(fn) ?? Object.fromEntries(FUNCTION_COUNTERS.map((k) => [k.perFunction.key, 0]));
    for (const k of FUNCTION_COUNTERS) c[k.perFunction.key] = (c[k.perFunction.key] ?? 0) + blockCount(b, k);
    into.set(fn, c);
  }
}

/** The functions of `totals` per call, with where each lies, most instructions first. */
export function perCall(totals: Map<string, FunctionCounts>, calls: number, symbols: readonly KernelSymbol[]): FunctionCost[] {
  const byName = new Map(symbols.map((s) => [s.name, s]));
  const instructions = FUNCTION_COUNTERS.find((k) => k.perFunction.from === 'instructions')?.perFunction.key ?? '';
  return [...totals.entries()]
    .map(([name, c]) => {
      const sym = byName.get(name);
      const per = Object.fromEntries(FUNCTION_COUNTERS.map((k) => [k.perFunction.key, (c[k.perFunction.key] ?? 0) / calls]));
      return { name, addr: sym ? sym.addr.toString(16) : '?', size: sym?.size ?? 0, perCall: per };
    })
    .sort((a, b) => (b.perCall[instructions] ?? 0) - (a.perCall[instructions] ?? 0) || a.name.localeCompare(b.name));
}

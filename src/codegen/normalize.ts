/**
 * Turn a parsed object (objdump.ts) into normalized functions whose text
 * compares equal whenever the code is the same, wherever it sits:
 * - addresses disappear; branch targets inside the function become labels
 *   `.L1`, `.L2`... numbered by first reference;
 * - relocations become `symbol+offset`, resolved through section symbols to
 *   the function or object they point into, with the compiler's clone numbers
 *   stripped (`foo.isra.0` -> `foo.isra`, `__key.3` -> `__key`);
 * - padding between functions is dropped (only bytes inside a symbol's size
 *   count), and a `foo.cold` part is appended to `foo`.
 * x86-64 only: branch and return recognition follows AT&T x86 mnemonics.
 */
import type { RawInsn, RawObject, RawReloc, RawSymbol } from './objdump.ts';
import type { FunctionPart, InsnKind, NormFunction, NormInsn } from './types.ts';

/** Strip the numbering compilers add to clones and local statics, consistently in before and after. */
export function normalizeSymbolName(name: string): string {
  return name.replace(/\.\d+(?=\.|$)/g, '').replace(/^(__UNIQUE_ID_.*?)\d+$/, '$1');
}

const COLD = /^(.*)\.cold(?:\.\d+)?$/;
const PREFIXES = new Set(['bnd', 'notrack', 'rep', 'repz', 'repe', 'repnz', 'repne', 'lock', 'cs', 'ds', 'data16', 'addr32']);

/** The mnemonic without prefixes, and the operand text. */
function splitInsn(text: string): { mnemonic: string; operands: string; prefix: string } {
  const words = text.replace(/\s+#.*$/, '').trim().split(/\s+/);
  let i = 0;
  while (i < words.length - 1 && PREFIXES.has(words[i] ?? '')) i++;
  return { prefix: words.slice(0, i).join(' '), mnemonic: words[i] ?? '', operands: words.slice(i + 1).join(' ') };
}

function isNop(mnemonic: string, operands: string): boolean {
  return mnemonic.startsWith('nop') || (mnemonic === 'xchg' && operands === '%ax,%ax');
}

const isBranch = (m: string): boolean => m.startsWith('j') || m.startsWith('call') || m.startsWith('loop') || m === 'xbegin';
const isPcRelative = (type: string): boolean => /PC|PLT|GOTPCREL/.test(type);

/** A function's address ranges: its main symbol and, if any, its cold part. */
interface Group {
  name: string;
  parts: { part: FunctionPart; sym: RawSymbol; insns: RawInsn[] }[];
}

interface Place {
  group: Group;
  part: FunctionPart;
  start: number;
  end: number;
}

/** Resolves (section, offset) to the function or data symbol containing it. */
class Resolver {
  private readonly bySection = new Map<string, { start: number; end: number; label: string; place?: Place }[]>();
  private readonly symbols = new Map<string, RawSymbol>();
  private readonly strings: Map<string, Buffer>;

  constructor(raw: RawObject, groups: Group[]) {
    this.strings = raw.strings;
    for (const s of raw.symbols) if (!this.symbols.has(s.name)) this.symbols.set(s.name, s);
    for (const g of groups) {
      for (const p of g.parts) {
        const place = { group: g, part: p.part, start: p.sym.addr, end: p.sym.addr + p.sym.sizeBytes };
        this.add(p.sym.section, { start: place.start, end: place.end, label: p.part === 'cold' ? `${g.name}.cold` : g.name, place });
      }
    }
    for (const s of raw.symbols) {
      if (!s.isFunction && !s.isSection && s.section !== '*UND*' && s.section !== '*ABS*') {
        this.add(s.section, { start: s.addr, end: s.addr + Math.max(s.sizeBytes, 1), label: normalizeSymbolName(s.name) });
      }
    }
  }

  private add(section: string, range: { start: number; end: number; label: string; place?: Place }): void {
    const list = this.bySection.get(section) ?? [];
    list.push(range);
    this.bySection.set(section, list);
  }

  /** Where a relocation (or a same-section address) points. */
  locate(section: string, offset: number): { place?: Place; offset: number; text: string } {
    const strings = this.strings.get(section);
    if (strings && offset >= 0 && offset < strings.length) return { offset, text: quoteString(strings, offset) };
    const hit = this.bySection.get(section)?.find((r) => offset >= r.start && offset < r.end);
    if (!hit) return { offset, text: withOffset(section, offset) };
    return { place: hit.place, offset, text: withOffset(hit.label, offset - hit.start) };
  }

  /** The target of a relocation on an instruction ending at `insnEnd`. */
  relocTarget(reloc: RawReloc, insnEnd: number): { section?: string; offset: number; name: string } {
    // PC-relative fields hold S + A - P; the target of the instruction is that plus its end.
    const adjust = isPcRelative(reloc.type) ? insnEnd - reloc.offset : 0;
    const sym = this.symbols.get(reloc.symbol);
    const addend = reloc.addend + adjust;
    if (sym && !['*UND*', '*ABS*', '*COM*'].includes(sym.section)) {
      return { section: sym.section, offset: sym.addr + addend, name: reloc.symbol };
    }
    return { offset: addend, name: withOffset(normalizeSymbolName(reloc.symbol), addend) };
  }
}

/** The NUL-terminated string at `offset`, quoted, shortened past 40 characters. */
function quoteString(bytes: Buffer, offset: number): string {
  const end = bytes.indexOf(0, offset);
  const text = bytes.subarray(offset, end < 0 ? bytes.length : end).toString('latin1');
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}...` : text);
}

function withOffset(name: string, offset: number): string {
  if (offset === 0) return name;
  return offset > 0 ? `${name}+0x${offset.toString(16)}` : `${name}-0x${(-offset).toString(16)}`;
}

/** Group function symbols of code sections; `.cold` parts join their parent. */
function groupFunctions(raw: RawObject): Group[] {
  const groups = new Map<string, Group>();
  const cold: RawSymbol[] = [];
  const funcs = raw.symbols.filter((s) => s.isFunction && raw.sections.has(s.section)).sort((a, b) => a.addr - b.addr);
  for (const sym of funcs) {
    if (COLD.test(sym.name)) cold.push(sym);
    else groups.set(sym.name, { name: sym.name, parts: [{ part: 'main', sym, insns: [] }] });
  }
  for (const sym of cold) {
    const parent = COLD.exec(sym.name)?.[1] ?? sym.name;
    const g = groups.get(parent) ?? { name: parent, parts: [] };
    g.parts.push({ part: 'cold', sym, insns: [] });
    groups.set(parent, g);
  }
  for (const g of groups.values()) {
    for (const p of g.parts) {
      const all = raw.sections.get(p.sym.section) ?? [];
      p.insns = all.filter((i) => i.addr >= p.sym.addr && i.addr < p.sym.addr + p.sym.sizeBytes);
    }
  }
  return [...groups.values()];
}

/** Give clashing normalized names (`foo.constprop.0` and `.1`) an occurrence suffix. */
function assignNames(groups: Group[]): void {
  const seen = new Map<string, number>();
  for (const g of groups) {
    const base = normalizeSymbolName(g.name);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    g.name = n === 1 ? base : `${base}#${n}`;
  }
}

interface Pending {
  insn: NormInsn;
  /** Text with `\0` where the label of `targetIndex` goes. */
  template: string;
}

function normalizeGroup(g: Group, resolver: Resolver): NormFunction {
  const flat = g.parts.flatMap((p) =>
    p.insns.map((insn, i) => ({ insn, part: p.part, section: p.sym.section, end: p.insns[i + 1]?.addr ?? p.sym.addr + p.sym.sizeBytes })),
  );
  const indexOf = new Map(flat.map((f, i) => [`${f.section}:${f.insn.addr}`, i]));
  const pending: Pending[] = flat.map((f) => normalizeInsn(f.insn, f.end, f.section, f.part, g, resolver, indexOf));
  let next = 1;
  for (const p of pending) {
    const t = p.insn.targetIndex;
    if (t === undefined) continue;
    const target = pending[t]?.insn;
    if (target && target.label === undefined) target.label = `.L${next++}`;
  }
  const insns = pending.map((p) => {
    const label = p.insn.targetIndex === undefined ? '' : (pending[p.insn.targetIndex]?.insn.label ?? '?');
    return { ...p.insn, text: p.template.replace('\0', label) };
  });
  const main = g.parts.find((p) => p.part === 'main')?.sym ?? g.parts[0]?.sym;
  return {
    name: g.name,
    symbols: g.parts.map((p) => p.sym.name),
    section: main?.section ?? '',
    insns,
    sizeBytes: g.parts.reduce((s, p) => s + p.sym.sizeBytes, 0),
  };
}

function normalizeInsn(
  insn: RawInsn,
  end: number,
  section: string,
  part: FunctionPart,
  g: Group,
  resolver: Resolver,
  indexOf: Map<string, number>,
): Pending {
  const { prefix, mnemonic, operands } = splitInsn(insn.text);
  const head = prefix ? `${prefix} ${mnemonic}` : mnemonic;
  const base = { part, sizeBytes: end - insn.addr };
  if (isNop(mnemonic, operands)) return { insn: { ...base, text: head, kind: 'nop' }, template: head };
  const targets = insn.relocs.filter((r) => r.offset >= insn.addr && r.offset < end).map((r) => resolver.relocTarget(r, end));
  if (isBranch(mnemonic) && !operands.startsWith('*')) {
    const direct = /^([0-9a-f]+) <[^>]*>$/.exec(operands);
    const target = targets[0] ?? (direct ? { section, offset: Number.parseInt(direct[1] ?? '0', 16), name: '' } : undefined);
    return branch(head, mnemonic, target, part, base.sizeBytes, g, resolver, indexOf, operands);
  }
  // `# 298 <f+0xb8>` comments repeat an address; the relocation says where it really points.
  let text = `${head}${operands ? ` ${operands}` : ''}`;
  for (const t of targets) text += ` <${t.section === undefined ? t.name : resolver.locate(t.section, t.offset).text}>`;
  const indirectJump = mnemonic.startsWith('jmp');
  const kind: InsnKind = mnemonic.startsWith('ret') ? 'return' : indirectJump ? 'tail-call' : mnemonic === 'ud2' || mnemonic === 'int3' ? 'trap' : 'other';
  return { insn: { ...base, text, kind }, template: text };
}

function branch(
  head: string,
  mnemonic: string,
  target: { section?: string; offset: number; name: string } | undefined,
  part: FunctionPart,
  sizeBytes: number,
  g: Group,
  resolver: Resolver,
  indexOf: Map<string, number>,
  operands: string,
): Pending {
  const base = { part, sizeBytes };
  const conditional = mnemonic.startsWith('j') && !mnemonic.startsWith('jmp');
  const jump = mnemonic.startsWith('jmp');
  if (!target) return { insn: { ...base, text: `${head} ${operands}`, kind: 'other' }, template: `${head} ${operands}` };
  const where = target.section === undefined ? undefined : resolver.locate(target.section, target.offset);
  const index = target.section === undefined ? undefined : indexOf.get(`${target.section}:${target.offset}`);
  if (where?.place?.group === g && index !== undefined && (conditional || jump)) {
    const template = `${head} \0`;
    return { insn: { ...base, text: template, kind: conditional ? 'cond-branch' : 'jump', targetIndex: index }, template };
  }
  const name = where ? where.text : target.name;
  const text = `${head} ${name}`;
  const kind: InsnKind = !jump ? 'other' : /return_thunk/.test(name) ? 'return' : 'tail-call';
  return { insn: { ...base, text, kind }, template: text };
}

/** Every function of the object, normalized, keyed by normalized name. */
export function normalizeObject(raw: RawObject): Map<string, NormFunction> {
  const groups = groupFunctions(raw);
  assignNames(groups);
  const resolver = new Resolver(raw, groups);
  const out = new Map<string, NormFunction>();
  for (const g of groups) out.set(g.name, normalizeGroup(g, resolver));
  return out;
}

/** The normalized listing of a function as diffable lines: labels on their own lines, the cold part marked. */
export function listing(fn: NormFunction): string[] {
  const lines: string[] = [];
  let part: FunctionPart = 'main';
  for (const insn of fn.insns) {
    if (insn.part !== part) {
      part = insn.part;
      lines.push(`${fn.name}.cold:`);
    }
    if (insn.label) lines.push(`${insn.label}:`);
    lines.push(`\t${insn.text}`);
  }
  return lines;
}

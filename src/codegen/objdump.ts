/**
 * Read an object file through the real `objdump -d -r -t --no-show-raw-insn`
 * and parse its text into symbols, instructions and relocations. Nothing is
 * normalized here (see normalize.ts); this layer only turns objdump's text
 * into data, so its parser can be tested on captured output.
 */
import { execFile } from 'node:child_process';
import { UserError } from '../errors.ts';

export interface RawSymbol {
  name: string;
  section: string;
  addr: number;
  sizeBytes: number;
  /** `F` in objdump's flags: a function symbol. */
  isFunction: boolean;
  /** `d` in objdump's flags: the symbol standing for a whole section. */
  isSection: boolean;
}

export interface RawReloc {
  /** Offset of the relocated field in its section. */
  offset: number;
  type: string;
  symbol: string;
  addend: number;
}

export interface RawInsn {
  addr: number;
  /** The instruction as objdump prints it, without address or raw bytes. */
  text: string;
  relocs: RawReloc[];
}

export interface RawObject {
  symbols: RawSymbol[];
  /** Disassembled (code) sections, each in address order. */
  sections: Map<string, RawInsn[]>;
  /** Contents of merged string sections (`.rodata.str1.1`), so references can name the string. */
  strings: Map<string, Buffer>;
}

const SYMBOL_LINE = /^([0-9a-f]+) (.{7}) (\S+)\t([0-9a-f]+) (.*)$/;
const INSN_LINE = /^\s*([0-9a-f]+):\t(.*)$/;
const RELOC_LINE = /^\s*([0-9a-f]+): (R_\S+)\s+(\S+)$/;
const SECTION_LINE = /^Disassembly of section (\S+):$/;

/** Split `sym+0x10` / `sym-0x4` / `sym` into name and addend. */
export function parseRelocTarget(expr: string): { symbol: string; addend: number } {
  const m = /^(.*?)([+-])0x([0-9a-f]+)$/.exec(expr);
  if (!m || m[1] === '') return { symbol: expr, addend: 0 };
  const n = Number.parseInt(m[3] ?? '0', 16);
  return { symbol: m[1] ?? expr, addend: m[2] === '-' ? -n : n };
}

function parseSymbol(line: string): RawSymbol | undefined {
  const m = SYMBOL_LINE.exec(line);
  if (!m) return undefined;
  const flags = m[2] ?? '';
  // st_other visibility is printed before the name: ".hidden foo".
  const name = (m[5] ?? '').replace(/^\.(hidden|protected|internal) /, '').trim();
  return {
    name,
    section: m[3] ?? '',
    addr: Number.parseInt(m[1] ?? '0', 16),
    sizeBytes: Number.parseInt(m[4] ?? '0', 16),
    isFunction: flags.includes('F'),
    isSection: flags.includes('d'),
  };
}

/** Parse the text of `objdump -d -r -t --no-show-raw-insn` (C locale). */
export function parseObjdump(text: string): RawObject {
  const symbols: RawSymbol[] = [];
  const sections = new Map<string, RawInsn[]>();
  let inSymbols = false;
  let current: RawInsn[] | undefined;
  for (const line of text.split('\n')) {
    if (line === 'SYMBOL TABLE:') {
      inSymbols = true;
      continue;
    }
    if (inSymbols) {
      if (line.trim() === '') inSymbols = false;
      else {
        const sym = parseSymbol(line);
        if (sym) symbols.push(sym);
      }
      continue;
    }
    const section = SECTION_LINE.exec(line);
    if (section) {
      current = [];
      sections.set(section[1] ?? '', current);
      continue;
    }
    if (!current) continue;
    const reloc = RELOC_LINE.exec(line);
    if (reloc) {
      const last = current[current.length - 1];
      if (last) last.relocs.push({ offset: Number.parseInt(reloc[1] ?? '0', 16), type: reloc[2] ?? '', ...parseRelocTarget(reloc[3] ?? '') });
      continue;
    }
    const insn = INSN_LINE.exec(line);
    if (insn) current.push({ addr: Number.parseInt(insn[1] ?? '0', 16), text: (insn[2] ?? '').trim(), relocs: [] });
  }
  return { symbols, sections, strings: new Map() };
}

/** Parse `objdump -s` hex dumps: `Contents of section X:` then ` 0000 6e656761 74697665 00616761  negative.aga`. */
export function parseSectionDump(text: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  let name: string | undefined;
  let bytes: number[] = [];
  const flush = (): void => {
    if (name !== undefined) out.set(name, Buffer.from(bytes));
  };
  for (const line of text.split('\n')) {
    const head = /^Contents of section (\S+):$/.exec(line);
    if (head) {
      flush();
      name = head[1];
      bytes = [];
      continue;
    }
    const row = /^ ([0-9a-f]+) ((?:[0-9a-f]{2,8} ?){1,4})/.exec(line);
    if (name === undefined || !row) continue;
    // The hex field is 4 groups of up to 4 bytes; the ASCII column follows after two spaces.
    const hex = (line.slice(row[1]!.length + 2, row[1]!.length + 2 + 36).match(/[0-9a-f]{2}/g) ?? []).map((h) => Number.parseInt(h, 16));
    bytes.push(...hex);
  }
  flush();
  return out;
}

/** Run objdump on `objectPath` and return its text; a missing objdump names its package. */
export function runObjdump(objectPath: string, objdump = 'objdump', args = ['-d', '-r', '-t', '--no-show-raw-insn']): Promise<string> {
  args = [...args, objectPath];
  return new Promise((resolve, reject) => {
    execFile(objdump, args, { env: { ...process.env, LC_ALL: 'C' }, maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (!err) { resolve(stdout); return; }
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        reject(new UserError(`'${objdump}' not found: codegen disassembles with GNU objdump; install it with 'apt-get install -y binutils'`)); return;
      }
      reject(new UserError(`objdump could not read ${objectPath}: ${stderr.trim() || err.message}`));
    });
  });
}

/** Disassemble and parse one object file. */
export async function readObject(objectPath: string, objdump?: string): Promise<RawObject> {
  const raw = parseObjdump(await runObjdump(objectPath, objdump));
  const stringSections = [...new Set(raw.symbols.map((s) => s.section).filter((s) => s.startsWith('.rodata.str')))];
  if (stringSections.length > 0) {
    raw.strings = parseSectionDump(await runObjdump(objectPath, objdump, ['-s', ...stringSections.flatMap((s) => ['-j', s])]));
  }
  return raw;
}

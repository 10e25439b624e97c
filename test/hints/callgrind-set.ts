/**
 * A branch set (the `branches.json` of `hints collect --exact`) of a
 * user-space program, counted by valgrind's callgrind instead of hintlab's
 * qemu plugin: the same facts (each conditional jump's taken and
 * fall-through counts, and the addr2line chains of the jump and its two
 * ways), so `hintlab hints` can be checked on real gcc output and real
 * DWARF without booting a kernel.
 */
import { execFileSync } from 'node:child_process';
import { relative } from 'node:path';

interface Insn {
  addr: number;
  text: string;
  fn: string;
  offset: number;
}

/** Every instruction of the binary's text, in order (objdump -d). */
function disassemble(binary: string): Insn[] {
  const out = execFileSync('objdump', ['-d', '--no-show-raw-insn', binary], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const insns: Insn[] = [];
  let fn = '';
  let start = 0;
  for (const line of out.split('\n')) {
    const head = /^([0-9a-f]+) <(.+)>:$/.exec(line);
    if (head) {
      fn = head[2]!;
      start = parseInt(head[1]!, 16);
      continue;
    }
    const m = /^\s+([0-9a-f]+):\t(.+)$/.exec(line);
    if (m) insns.push({ addr: parseInt(m[1]!, 16), text: m[2]!.replace(/\s+/g, ' ').trim(), fn, offset: parseInt(m[1]!, 16) - start });
  }
  return insns;
}

/** Instruction executions and taken conditional jumps by address, from a callgrind.out of `--dump-instr=yes --collect-jumps=yes --compress-pos=no`. */
function callgrindCounts(cgOut: string, binary: string): { ir: Map<number, number>; taken: Map<number, number> } {
  const ir = new Map<number, number>();
  const taken = new Map<number, number>();
  let mine = false;
  let pendingTaken: number | null = null;
  let afterCall = false;
  for (const line of cgOut.split('\n')) {
    if (line.startsWith('ob=')) mine = line.slice(3) === binary;
    if (!mine) continue;
    // the line after `calls=` is the call's inclusive cost, not the instruction's own
    if (line.startsWith('calls=')) {
      afterCall = true;
      continue;
    }
    const j = /^jcnd=(\d+)\/(\d+) /.exec(line);
    if (j) {
      pendingTaken = Number(j[1]);
      continue;
    }
    const c = /^0x([0-9a-f]+) \d+(?: (\d+))?/.exec(line);
    if (!c) continue;
    const addr = parseInt(c[1]!, 16);
    if (afterCall) afterCall = false;
    else if (pendingTaken !== null) taken.set(addr, (taken.get(addr) ?? 0) + pendingTaken);
    else if (c[2]) ir.set(addr, (ir.get(addr) ?? 0) + Number(c[2]));
    pendingTaken = null;
  }
  return { ir, taken };
}

interface Frame {
  function: string;
  file: string;
  line: number;
}

/** addr2line -i chains of the addresses, innermost first, files relative to `root`. */
function chains(binary: string, addrs: number[], root: string): Map<number, Frame[]> {
  const input = addrs.map((a) => `0x${a.toString(16)}`).join('\n');
  const out = execFileSync('addr2line', ['-a', '-f', '-i', '-e', binary], { input, encoding: 'utf8' }).split('\n');
  const result = new Map<number, Frame[]>();
  let current: Frame[] = [];
  for (let i = 0; i < out.length; i++) {
    const line = out[i]!;
    if (/^0x[0-9a-f]+$/.test(line)) {
      current = [];
      result.set(parseInt(line, 16), current);
      continue;
    }
    const where = /^(.*):(\d+)(?: \(discriminator \d+\))?$/.exec(out[i + 1] ?? '');
    if (where && where[1] !== '??') current.push({ function: line, file: relative(root, where[1]!), line: Number(where[2]) });
    i++;
  }
  return result;
}

/** The branch set of one run of `binary` under callgrind (`cgOut` its output file's text); source paths relative to `root`. */
export function branchSetFromCallgrind(binary: string, cgOut: string, root: string): object {
  const insns = disassemble(binary);
  const { ir, taken } = callgrindCounts(cgOut, binary);
  const jumps = insns.flatMap((insn, i) => {
    const m = /^j(?!mp)[a-z]+ ([0-9a-f]+)/.exec(insn.text);
    const ran = ir.get(insn.addr) ?? 0;
    const next = insns[i + 1];
    if (!m || ran === 0 || !next) return [];
    const jumped = taken.get(insn.addr) ?? 0;
    return [{ insn, target: parseInt(m[1]!, 16), next: next.addr, taken: jumped, fell: ran - jumped }];
  });
  const places = chains(binary, jumps.flatMap((j) => [j.insn.addr, j.target, j.next]), root);
  const at = (a: number): Frame[] => places.get(a) ?? [];
  return {
    format: 'hintlab-branches',
    version: 1,
    kernel: { release: 'user space', vmlinux: binary, lineTable: true },
    windows: 1,
    branches: jumps.map((j) => ({
      addr: j.insn.addr.toString(16),
      function: j.insn.fn,
      offset: j.insn.offset,
      insn: j.insn.text,
      taken: j.taken,
      fell: j.fell,
      at: at(j.insn.addr),
      target: { addr: j.target.toString(16), at: at(j.target) },
      next: { addr: j.next.toString(16), at: at(j.next) },
    })),
  };
}

/**
 * objdump's text of chosen instructions of an ELF file: one
 * `objdump -d --no-show-raw-insn` run over the whole file (about 1.5 s on a
 * tinyconfig 6.12 vmlinux), read line by line, keeping the wanted addresses.
 * The text is objdump's with its spacing collapsed and the `<symbol+off>`
 * comment dropped: `jne ffffffff812345a0`, `ds jne ffffffff81000040`.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Known } from '../model.ts';

const INSN_LINE = /^\s*([0-9a-f]+):\t(.*)$/;

/** One disassembly line's address and its instruction text, or null when it is not an instruction line. */
export function parseObjdumpLine(line: string): { addr: bigint; text: string } | null {
  const m = INSN_LINE.exec(line);
  if (!m) return null;
  const text = m[2]!.replace(/\s*<[^>]*>\s*$/, '').replace(/\s+/g, ' ').trim();
  return text ? { addr: BigInt(`0x${m[1]!}`), text } : null;
}

/** The instruction text at each of `addrs`; unknown, saying why, when objdump cannot run. */
export async function instructionTexts(elf: string, addrs: ReadonlySet<bigint>): Promise<Known<Map<bigint, string>>> {
  const found = new Map<bigint, string>();
  if (!addrs.size) return { known: true, value: found };
  const child = spawn('objdump', ['-d', '--no-show-raw-insn', elf], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-2000)));
  const ended = new Promise<{ code: number | null; error?: Error }>((done) => {
    child.on('error', (error) => done({ code: null, error }));
    child.on('close', (code) => done({ code }));
  });
  for await (const line of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
    const insn = parseObjdumpLine(line);
    if (insn && addrs.has(insn.addr)) found.set(insn.addr, insn.text);
  }
  const end = await ended;
  if (end.error || end.code !== 0) {
    return { known: false, reason: `objdump -d ${elf} failed (${end.error?.message ?? (stderr.trim().split('\n')[0] || `exit ${end.code}`)}); install binutils` };
  }
  return { known: true, value: found };
}

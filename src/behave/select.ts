/**
 * Which scenarios and programs a `behave` run uses: `--scenario NAME`
 * (built-in), `--scenario FILE` (every scenario in the file), `all` (every
 * built-in, the default), and `--program PATH` (a static program whose
 * output lines are its trace). Names must not repeat across them.
 */
import { existsSync, readFileSync, type Stats, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { printable, UserError } from '../errors.ts';
import { builtinScenarios } from './builtin.ts';
import type { ProgramFile } from './run.ts';
import { parseScenarios, type Scenario } from './scenario.ts';

function fromFile(path: string): Scenario[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UserError(`--scenario ${printable(path)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 2);
  }
  return parseScenarios(text, path);
}

function statOrNull(path: string): Stats | null {
  return existsSync(path) ? statSync(path) : null;
}

/** The scenarios named, in order; none named means every built-in one. */
export function selectScenarios(requested: readonly string[], cwd: string): Scenario[] {
  const builtins = builtinScenarios();
  const out: Scenario[] = [];
  for (const r of requested.length ? requested : ['all']) {
    const path = resolve(cwd, r);
    const found = r === 'all' ? builtins : builtins.filter((s) => s.name === r);
    if (found.length) out.push(...found);
    else if (statOrNull(path)?.isFile()) out.push(...fromFile(path));
    else if (statOrNull(path)?.isDirectory()) throw new UserError(`--scenario ${printable(r)}: it is a directory; give a scenario file inside it, or a built-in scenario's name`, 2);
    else throw new UserError(`--scenario ${printable(r)}: no built-in scenario has that name and no such file exists (built-in: ${builtins.map((s) => s.name).join(', ')}, or 'all')`, 2);
  }
  const seen = new Map<string, Scenario>();
  for (const s of out) {
    const first = seen.get(s.name);
    if (first) throw new UserError(`scenario '${printable(s.name)}' is given twice (${printable(first.source)}:${first.line} and ${printable(s.source)}:${s.line}); name each scenario once`, 2);
    seen.set(s.name, s);
  }
  return out;
}

/** ELF magic and class: a program for the guest must be a 64-bit ELF file. */
function isElf64(data: Buffer): boolean {
  return data.length > 4 && data.readUInt32BE(0) === 0x7f454c46 && data[4] === 2;
}

/** `--program` files, read and checked (a static x86_64 ELF is what the guest can run). */
export function readPrograms(paths: readonly string[], cwd: string): ProgramFile[] {
  return paths.map((p) => {
    const hostPath = resolve(cwd, p);
    let data: Buffer;
    try {
      data = readFileSync(hostPath);
    } catch (err) {
      throw new UserError(`--program ${p}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 2);
    }
    if (!isElf64(data)) throw new UserError(`--program ${p}: not a 64-bit ELF program; build it static for the guest (gcc -static -o prog prog.c)`, 2);
    const name = basename(hostPath).replace(/[^\w.-]/g, '_');
    return { name, hostPath, data };
  });
}

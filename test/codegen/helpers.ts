/** Shared helpers for the codegen tests: fixture paths, in-process CLI, tree hashing. */
import { createHash } from 'node:crypto';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliIO } from '../../src/cli/io.ts';
import { run } from '../../src/cli/main.ts';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
export const fixture = (name: string): string => join(FIXTURES, name);

export async function cli(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t), isTTY: false, env, cwd: process.cwd() } as CliIO;
  const code = await run(argv, io);
  return { code, stdout, stderr };
}

/** sha256 over every path, type and content below `dir` (symbolic links by target). */
export function hashTree(dir: string): string {
  const h = createHash('sha256');
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const path = join(rel, name);
      const st = lstatSync(join(dir, path));
      if (st.isDirectory()) {
        h.update(`d ${path}\n`);
        walk(path);
      } else if (st.isSymbolicLink()) h.update(`l ${path} ${readlinkSync(join(dir, path))}\n`);
      else h.update(`f ${path}\n`).update(readFileSync(join(dir, path)));
    }
  };
  walk('');
  return h.digest('hex');
}

/** A fresh temporary directory. */
export const tempDir = (): string => mkdtempSync(join(tmpdir(), 'hintlab-codegen-test-'));

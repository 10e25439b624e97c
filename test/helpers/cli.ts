/** Run the CLI in-process with captured output. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliIO, Services } from '../../src/cli/io.ts';
import { run } from '../../src/cli/main.ts';

/** node arguments that run the CLI from source in a child process (the tests never use a stale dist/). */
export const CLI_FROM_SOURCE = ['--import', 'tsx', fileURLToPath(new URL('../../src/cli/entry.ts', import.meta.url))];

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(argv: string[], opts: { env?: NodeJS.ProcessEnv; services?: Services } = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    isTTY: false,
    env: opts.env ?? process.env,
    cwd: process.cwd(),
    services: opts.services,
  };
  const code = await run(argv, io);
  return { code, stdout, stderr };
}

/** A fresh temporary directory for one test. */
export function tempDir(prefix = 'hintlab-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** `dir`/bzImage: a file with a bzImage header and nothing else, for `--kernel` checks that never boot it. */
export function bzImageStub(dir: string): string {
  const image = join(dir, 'bzImage');
  const header = Buffer.alloc(0x300);
  header.write('HdrS', 0x202, 'latin1');
  writeFileSync(image, header);
  return image;
}

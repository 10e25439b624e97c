/** Running the CLI in-process against one results database and working directory. */
import type { CliIO } from '../../src/cli/io.ts';
import { run } from '../../src/cli/main.ts';

export type Hintlab = (...argv: string[]) => Promise<{ code: number; out: string; err: string }>;

/** `hintlab ...argv` with HINTLAB_DB=`db`, relative paths resolved against `cwd`, output captured. */
export function hintlabIn(db: string, cwd: string): Hintlab {
  return async (...argv) => {
    let out = '';
    let err = '';
    const io: CliIO = { stdout: (t) => void (out += t), stderr: (t) => void (err += t), isTTY: false, env: { HINTLAB_DB: db }, cwd };
    const code = await run(argv, io);
    return { code, out, err };
  };
}

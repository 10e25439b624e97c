/**
 * Objects from two plain C files: `cc -c -O<level> <cflags> file.c`, each
 * into a private temporary directory that `close` removes.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { UserError } from '../errors.ts';
import { errorLines } from './compilers.ts';
import type { BuildOutcome, ObjectSource, Variant } from './matrix.ts';
import type { CodegenSubject, CompilerInfo, OptLevel } from './types.ts';

/** Compile one C file to an object; the compiler's messages on failure. */
export function compileC(compiler: string, args: string[]): Promise<{ ok: true } | { ok: false; output: string }> {
  return new Promise((done) => {
    execFile(compiler, args, { env: { ...process.env, LC_ALL: 'C' }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      done(err ? { ok: false, output: `${stdout}${stderr}` || err.message } : { ok: true });
    });
  });
}

export class FilesSource implements ObjectSource {
  readonly subject: CodegenSubject;
  readonly notes: string[] = [];
  /** Made at the first build, so a failure before any build leaves nothing behind. */
  private dir: string | null = null;

  constructor(before: string, after: string, private readonly cflags: string[]) {
    for (const [flag, file] of [['--before', before], ['--after', after]] as const) {
      if (!existsSync(file)) throw new UserError(`${flag} ${file}: no such file`, 2);
    }
    this.subject = { kind: 'files', before: resolve(before), after: resolve(after), cflags };
  }

  async enter(): Promise<void> {}

  async build(compiler: CompilerInfo, opt: OptLevel, variant: Variant): Promise<BuildOutcome> {
    if (this.subject.kind !== 'files') throw new Error('unreachable');
    this.dir ??= mkdtempSync(join(tmpdir(), 'hintlab-codegen-'));
    const objectPath = join(this.dir, `${compiler.command.replace(/\W/g, '_')}-${opt}-${variant}.o`);
    const source = variant === 'before' ? this.subject.before : this.subject.after;
    const result = await compileC(compiler.command, ['-c', `-${opt}`, ...this.cflags, source, '-o', objectPath]);
    return result.ok ? { state: 'built', objectPath } : { state: 'failed', errorLines: errorLines(result.output) };
  }

  close(): Promise<void> {
    if (this.dir !== null) rmSync(this.dir, { recursive: true, force: true });
    return Promise.resolve();
  }
}

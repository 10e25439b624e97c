/**
 * Find the compilers of the matrix and how they describe themselves. A
 * compiler that is not installed is a skipped column, not an error.
 */
import { execFile } from 'node:child_process';
import type { CompilerInfo } from './types.ts';

export type CompilerProbe = { state: 'found'; info: CompilerInfo } | { state: 'missing'; command: string; reason: string };

/** `gcc (Debian 12.2.0-14+deb12u1) 12.2.0` -> gcc 12.2.0; `Debian clang version 14.0.6` -> clang 14.0.6. */
export function describeCompiler(command: string, versionText: string): CompilerInfo {
  const first = versionText.split('\n')[0] ?? '';
  const family = /clang/i.test(first) ? 'clang' : /gcc|GCC/.test(first) || /^gcc/.test(command) ? 'gcc' : 'other';
  const versions = [...first.matchAll(/\b(\d+\.\d+(?:\.\d+)?)\b/g)].map((m) => m[1] ?? '');
  // gcc prints the version last; clang after the word "version".
  const version = (family === 'clang' ? /version (\d+\.\d+(?:\.\d+)?)/.exec(first)?.[1] : versions[versions.length - 1]) ?? 'unknown';
  const name = family === 'other' ? command : family;
  return { command, label: `${name} ${version}`, family, version };
}

/** Run `command --version`; a command that is not on PATH comes back as missing with the package to install. */
export function probeCompiler(command: string): Promise<CompilerProbe> {
  return new Promise((resolve) => {
    execFile(command, ['--version'], { env: { ...process.env, LC_ALL: 'C' } }, (err, stdout) => {
      if (!err) { resolve({ state: 'found', info: describeCompiler(command, stdout) }); return; }
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      const reason = missing
        ? `'${command}' is not installed (on Debian: apt-get install -y ${command.replace(/^.*\//, '')})`
        : `'${command} --version' failed: ${err.message}`;
      resolve({ state: 'missing', command, reason });
    });
  });
}

/** The lines of compiler or make output that say what went wrong, without the build's chatter. */
export function errorLines(output: string, max = 25): string[] {
  const lines = output.split('\n');
  const keep = new Set<number>();
  lines.forEach((line, i) => {
    if (/\berror\b|fatal|undefined reference|\*\*\*/i.test(line)) {
      keep.add(i);
      // The compiler's source line and caret follow the message.
      for (let j = i + 1; j <= i + 2 && j < lines.length && /^\s+(\d+ \|| \|)/.test(lines[j] ?? ''); j++) keep.add(j);
      if (/In function|In file included/.test(lines[i - 1] ?? '')) keep.add(i - 1);
    }
  });
  const picked = [...keep].sort((a, b) => a - b).map((i) => lines[i] ?? '');
  if (picked.length === 0) return lines.filter((l) => l.trim() !== '').slice(-max);
  return picked.slice(0, max);
}

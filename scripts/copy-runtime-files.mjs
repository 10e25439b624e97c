// The second half of `npm run build`: tsc emits only what it compiles from
// .ts, so every other file under src/ that the code opens at run time
// (the watchdog's and the worker's .mjs entries, and any .json, .c or .sh
// placed beside the code) is copied to the same place under the output
// directory. Usage: node scripts/copy-runtime-files.mjs [OUTDIR] (default dist).
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const src = join(root, 'src');
const out = resolve(process.argv[2] ?? join(root, 'dist'));
const RUNTIME = /\.(mjs|cjs|json|c|h|sh)$/;

let copied = 0;
for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !RUNTIME.test(entry.name)) continue;
  const from = join(entry.parentPath ?? entry.path, entry.name);
  const to = join(out, relative(src, from));
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
  copied++;
}
process.stdout.write(`copied ${copied} runtime files from src/ to ${relative(process.cwd(), out) || '.'}\n`);

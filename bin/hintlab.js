#!/usr/bin/env node
// Entry point: run the compiled CLI from dist/ (`npm run build`, which
// `npm ci` and `npm install` run through `prepare`). From source, without a
// build: node --import tsx src/cli/entry.ts.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli/entry.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write(`hintlab: ${fileURLToPath(entry)} is missing: run 'npm run build' in ${fileURLToPath(new URL('..', import.meta.url))}\n`);
  process.exit(70);
}
await import(entry.href);

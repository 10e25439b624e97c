/**
 * Preload (`node --import`) that lists every module a process loads: ES
 * modules as the resolve hook sees them, CommonJS from require.cache at
 * exit. One URL or path a line is appended to the file named by
 * HINTLAB_LOADS.
 */
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

const log = process.env.HINTLAB_LOADS;
if (!log) throw new Error('record-loads.mjs: set HINTLAB_LOADS to the file to list loaded modules in');

/** Resolve hook (runs on the loader thread): note each ES module resolved. */
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(log, `${result.url}\n`);
  return result;
}

if (isMainThread) {
  register(import.meta.url);
  const require = createRequire(import.meta.url);
  process.on('exit', () => appendFileSync(log, Object.keys(require.cache).map((p) => `${p}\n`).join('')));
}

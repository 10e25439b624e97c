/**
 * Parsing many C files on worker threads. Each worker loads the wasm
 * grammar once and answers `{file, text}` requests with FileSites; results
 * come back in input order.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { cParser, scanSource } from './parse.ts';
import type { FileSites } from './types.ts';

/**
 * The worker script. Built (dist/), worker.js runs as it is; from source, a
 * worker thread does not inherit the tsx loader, so worker-entry.mjs
 * registers it before loading worker.ts.
 */
const WORKER = import.meta.url.endsWith('.ts') ? new URL('./worker-entry.mjs', import.meta.url) : new URL('./worker.js', import.meta.url);

/** Below this many files, thread start-up (about 0.3 s each) costs more than it saves. */
const MIN_FILES_FOR_WORKERS = 40;

export interface ScanOptions {
  root: string;
  files: string[];
  jobs: number;
  onProgress?: (done: number, total: number) => void;
}

/** Parse `files` (root-relative) and return their sites in the same order. */
export async function scanFiles(opts: ScanOptions): Promise<FileSites[]> {
  const { root, files, jobs } = opts;
  if (jobs <= 1 || files.length < MIN_FILES_FOR_WORKERS) {
    const parser = await cParser();
    return files.map((file, i) => {
      const result = scanSource(parser, file, readFileSync(join(root, file), 'utf8'));
      opts.onProgress?.(i + 1, files.length);
      return result;
    });
  }
  const results: FileSites[] = new Array<FileSites>(files.length);
  let next = 0;
  let done = 0;
  const workers = Array.from({ length: Math.min(jobs, files.length) }, () =>
    new Worker(WORKER, { workerData: { root } }),
  );
  try {
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolveWorker, rejectWorker) => {
            const feed = (): void => {
              if (next >= files.length) {
                resolveWorker();
                return;
              }
              const index = next++;
              worker.postMessage({ index, file: files[index] });
            };
            worker.on('message', (msg: { index: number; result?: FileSites; error?: string }) => {
              if (msg.error !== undefined) {
                rejectWorker(new Error(`parsing ${files[msg.index]}: ${msg.error}`));
                return;
              }
              if (msg.result) results[msg.index] = msg.result;
              opts.onProgress?.(++done, files.length);
              feed();
            });
            worker.on('error', rejectWorker);
            feed();
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return results;
}

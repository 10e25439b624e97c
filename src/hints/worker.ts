/** A parsing worker: answers `{index, file}` with the file's FileSites (see pool.ts). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { cParser, scanSource } from './parse.ts';

const { root } = workerData as { root: string };
const parser = await cParser();
parentPort?.on('message', (msg: { index: number; file: string }) => {
  try {
    const result = scanSource(parser, msg.file, readFileSync(join(root, msg.file), 'utf8'));
    parentPort?.postMessage({ index: msg.index, result });
  } catch (err) {
    parentPort?.postMessage({ index: msg.index, error: (err as Error).message });
  }
});

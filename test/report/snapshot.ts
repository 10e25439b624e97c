/**
 * Snapshot files for the reports' text: `test/report/snapshots/NAME.txt`
 * holds the exact bytes a reporter wrote for a hand-built document, read
 * and checked by eye when it was written. A reporter that changes one byte
 * fails its test. `HINTLAB_UPDATE_SNAPSHOTS=1` (the one switch of every
 * snapshot test) writes the file instead of comparing: read the new text
 * (`git diff`) before committing it.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('./snapshots/', import.meta.url));

/** Assert that `text` is byte for byte the snapshot `name`. */
export function assertSnapshot(name: string, text: string): void {
  const file = `${DIR}${name}.txt`;
  if (process.env.HINTLAB_UPDATE_SNAPSHOTS === '1') writeFileSync(file, text);
  if (!existsSync(file)) assert.fail(`no snapshot ${file}: run with HINTLAB_UPDATE_SNAPSHOTS=1 to write it, then read it`);
  assert.equal(text, readFileSync(file, 'utf8'), `the text differs from the snapshot ${file}`);
}

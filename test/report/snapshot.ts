/**
 * Snapshot files for the reports' text: `test/report/snapshots/NAME.txt`
 * holds the exact bytes a reporter wrote for a hand-built document, read
 * and checked by eye when it was written. A reporter that changes one byte
 * fails its test. `HINTLAB_WRITE_SNAPSHOTS=1` writes a missing file instead
 * of failing; an existing one is never rewritten (delete it first, and
 * read the new one before committing).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('./snapshots/', import.meta.url));

/** Assert that `text` is byte for byte the snapshot `name`. */
export function assertSnapshot(name: string, text: string): void {
  const file = `${DIR}${name}.txt`;
  if (!existsSync(file)) {
    if (process.env.HINTLAB_WRITE_SNAPSHOTS !== '1') assert.fail(`no snapshot ${file}: run with HINTLAB_WRITE_SNAPSHOTS=1 to write it, then read it`);
    writeFileSync(file, text);
    return;
  }
  assert.equal(text, readFileSync(file, 'utf8'), `the text differs from the snapshot ${file}`);
}

/**
 * The cost plugin's branch counter (probes/plugin/branches.c) compiled by
 * the real gcc with a harness (fixtures/branches-harness.c) that feeds it
 * block sequences: a direction is read from the next block; a jump
 * interrupted before its next block is held and resolved where the iret
 * returns; a jump held across a window's close counts in no window; only
 * conditional jumps are counted, with their prefixes.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PLUGIN_SOURCE_DIR } from '../../src/vm/cost-plugin.ts';
import { tempDir } from '../helpers/cli.ts';
import { requireTool } from '../helpers/tools.ts';

test('jumps are counted by the block that runs next, an interrupted one where the iret returns, and none across a window\'s close', { skip: requireTool('gcc', 'gcc') }, () => {
  const dir = tempDir();
  try {
    const harness = join(dir, 'harness');
    execFileSync('gcc', ['-O2', '-Wall', '-Wextra', '-Werror', '-o', harness, join(import.meta.dirname, 'fixtures', 'branches-harness.c'), join(PLUGIN_SOURCE_DIR, 'branches.c')]);
    assert.equal(execFileSync(harness, { encoding: 'utf8' }), [
      'jmp is a conditional jump: 0; iretq is an iret: 1',
      // je: taken twice, fell through once, and once more after the interrupt; jne (7 bytes with its prefix): fell through once
      'b 0 2000 2107 0 1 2007',
      'b 0 1000 1012 2 2 1002',
      // window 1: only the jne that ran in it
      'b 1 2000 2107 1 0 2007',
      '',
    ].join('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

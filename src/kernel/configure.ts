/**
 * Configuring the object directory: the base (a kconfig target, a file, a
 * box's own configuration), modules made built in for a box, then
 * hintlab's settings merged and `make olddefconfig`.
 *
 * A box-based kernel is booted on the box with the box's own userspace and
 * nothing installed under /lib/modules for it, so its modules are built in:
 * all of them (`make mod2yesconfig`), or with --localmodconfig only those
 * the box has loaded (`make LSMOD=FILE localyesconfig`, which drops the
 * others: a distribution configuration has thousands, hours of compiling on
 * two cores). Both run after an olddefconfig, so every option of this tree
 * already has a value and kconfig asks nothing.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { droppedSettings, mergeConfig, parseConfig } from './config.ts';
import type { Inputs } from './inputs.ts';

/** Runs one make invocation, throwing a UserError naming `what` when it fails. */
export type MakeStep = (args: string[], what: string) => Promise<void>;

export interface Configured {
  /** Settings olddefconfig did not honour (`CONFIG_X=y (now: not set)`). */
  dropped: string[];
  /** Options still `=m` after modules were made built in (they can only be modules): not built. */
  modulesNotBuilt: string[];
}

/** The `=m` options of a .config, by name. */
export function moduleOptions(config: string): string[] {
  return [...parseConfig(config)].filter(([, v]) => v === 'm').map(([name]) => `CONFIG_${name}`);
}

/**
 * Whether a change to these files can change what a configuration step
 * produces: Kconfig files, the kconfig targets' fragments, kconfig itself.
 */
export function touchesKconfig(files: readonly string[]): boolean {
  return files.some((f) => /(^|\/)Kconfig[^/]*$/.test(f) || /(^|\/)configs\//.test(f) || f.startsWith('scripts/kconfig/'));
}

/**
 * Configure `obj`. With `keepBase` (an incremental build whose .config is
 * A's final one, and no patch of A or B touches kconfig's inputs), the base
 * and modules steps would produce A's configuration again: they are
 * skipped, and only hintlab's settings (LOCALVERSION differs per label) are
 * merged and olddefconfig run.
 */
export async function configure(tree: string, obj: string, i: Inputs, modulesListFile: string | null, make: MakeStep, keepBase = false): Promise<Configured> {
  const mk = ['-C', tree, `O=${obj}`];
  if (keepBase) {
    // A's final .config is already in the copied object directory
  } else if (i.baseText !== null) {
    mkdirSync(obj, { recursive: true });
    writeFileSync(join(obj, '.config'), i.baseText);
  } else {
    await make([...mk, i.baseDesc], `make ${i.baseDesc}`);
  }
  if (i.modules !== null && !keepBase) {
    await make([...mk, 'olddefconfig'], 'make olddefconfig (of the base)');
    if (i.modules === 'local-builtin') await make([...mk, `LSMOD=${modulesListFile}`, 'localyesconfig'], 'make localyesconfig');
    else await make([...mk, 'mod2yesconfig'], 'make mod2yesconfig');
  }
  writeFileSync(join(obj, '.config'), mergeConfig(readFileSync(join(obj, '.config'), 'utf8'), i.merge));
  await make([...mk, 'olddefconfig'], 'make olddefconfig');
  const final = readFileSync(join(obj, '.config'), 'utf8');
  return { dropped: droppedSettings(final, i.merge), modulesNotBuilt: i.modules !== null ? moduleOptions(final) : [] };
}

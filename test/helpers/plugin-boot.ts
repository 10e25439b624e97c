/**
 * One boot of a kernel under TCG with hintlab's cost plugin, running a
 * static guest program through the probe's --exec: what the plugin wrote,
 * after checking that the boot ended by itself and the program exited 0.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildProbe } from '../../src/launch/probe-build.ts';
import { qemuLauncher } from '../../src/launch/qemu.ts';
import { guestTarget } from '../../src/targets/guest.ts';
import type { TargetJob } from '../../src/targets/target.ts';
import { buildCostPlugin, DEFAULT_COST_MODEL, pluginArg } from '../../src/vm/cost-plugin.ts';

export interface PluginBoot {
  vmlinuz: string;
  /** Scratch directory: the plugin's output and the initramfs cache go here. */
  dir: string;
  /** The program's bytes and its name in the guest (`/NAME`). */
  program: Buffer;
  name: string;
  /** Numbers the output file, so two boots write two files. */
  n: number;
  /** Count the directions of the program's own jumps too (ubranch=1). */
  userBranches?: boolean;
}

export async function bootUnderPlugin(b: PluginBoot): Promise<string> {
  const lines: string[] = [];
  const out = await bootProbeUnderPlugin(b, ['--exec', `/${b.name}`], [{ path: `/${b.name}`, data: b.program, mode: 0o755 }], lines);
  assert.ok(lines.some((l) => l.includes('@hl1 exec ') && l.includes('status=0')), 'the test program did not exit 0');
  return out;
}

/** One boot of the probe itself with `args` (profiles and rounds) under the plugin: what the plugin wrote. */
export async function bootProbeUnderPlugin(b: Omit<PluginBoot, 'program' | 'name'>, args: string[], files: TargetJob['files'] = [], lines: string[] = []): Promise<string> {
  const out = join(b.dir, `boot-${b.n}.txt`);
  const target = guestTarget(
    { label: 'probe', image: b.vmlinuz, accel: 'tcg', icount: true, cpus: 1, memoryMiB: 256, plugin: pluginArg(buildCostPlugin(), out, DEFAULT_COST_MODEL, undefined, b.userBranches) },
    { probe: buildProbe({ static: true }), launcher: qemuLauncher(), cacheDir: join(b.dir, 'initramfs') },
  );
  const exit = await target.run({ program: 'probe', args, files, timeoutSeconds: 400 }, (l) => lines.push(l), new AbortController().signal);
  assert.equal(exit.end.kind, 'exited', exit.describe('boot did not end by itself'));
  return readFileSync(out, 'utf8');
}

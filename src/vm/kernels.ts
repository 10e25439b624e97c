/**
 * `--kernel LABEL=PATH` values: PATH is a kernel image (a bzImage, a
 * Debian vmlinuz) or a directory written by `hintlab kernel build`.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UserError } from '../errors.ts';
import { MANIFEST_FILE, readManifest, type KernelManifest } from '../kernel/manifest.ts';
import type { Known } from '../model.ts';
import { isBzImage } from '../targets/bzimage.ts';

export interface VmKernel {
  label: string;
  /** The image qemu boots (absolute). */
  image: string;
  manifest: KernelManifest | null;
  /** sha256 of the kernel's .config when it can be found next to the image. */
  configHash: Known<string>;
}

function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Debian keeps /boot/config-<release> next to /boot/vmlinuz-<release>; a build directory has .config. */
function configNextTo(image: string): Known<string> {
  const name = basename(image);
  const candidates = [join(dirname(image), '.config')];
  if (name.startsWith('vmlinuz-')) candidates.unshift(join(dirname(image), `config-${name.slice('vmlinuz-'.length)}`));
  for (const c of candidates) {
    if (existsSync(c)) return { known: true, value: `sha256:${sha256File(c).slice(0, 16)} (${c})` };
  }
  return { known: false, reason: `no kernel config found next to ${image} (looked for ${candidates.join(', ')})` };
}

/** Parse and check one `--kernel` value. */
export function resolveKernel(spec: string, cwd: string): VmKernel {
  const eq = spec.indexOf('=');
  const label = eq > 0 ? spec.slice(0, eq) : '';
  if (!/^[A-Za-z0-9][\w.-]*$/.test(label)) {
    throw new UserError(`--kernel '${spec}': expected LABEL=PATH with a label of letters, digits, '.', '_' or '-' (e.g. --kernel A=./build-a)`, 2);
  }
  const path = resolve(cwd, spec.slice(eq + 1));
  if (!existsSync(path)) throw new UserError(`--kernel ${label}: ${path} does not exist`, 2);
  if (statSync(path).isDirectory()) {
    let manifest: KernelManifest | null;
    try {
      manifest = readManifest(path);
    } catch (err) {
      throw new UserError(`--kernel ${label}: ${(err as Error).message}`, 2);
    }
    if (!manifest) {
      throw new UserError(`--kernel ${label}: ${path} is a directory without ${MANIFEST_FILE}; pass a bzImage, or a directory written by 'hintlab kernel build'`, 2);
    }
    const image = join(path, manifest.image);
    if (!existsSync(image)) throw new UserError(`--kernel ${label}: ${image} named by ${MANIFEST_FILE} is missing; rebuild with 'hintlab kernel build'`, 2);
    return { label, image, manifest, configHash: { known: true, value: `sha256:${manifest.configSha256.slice(0, 16)} (${MANIFEST_FILE})` } };
  }
  if (!isBzImage(path)) {
    throw new UserError(`--kernel ${label}: ${path} is not an x86 bzImage (no 'HdrS' boot header); pass arch/x86/boot/bzImage or a vmlinuz`, 2);
  }
  return { label, image: path, manifest: null, configHash: configNextTo(path) };
}

/**
 * The boot order: `ABA` (one letter per step) or `A,B,A` (labels of any
 * length). Every step must name a --kernel label and every kernel must run.
 */
export function parseOrder(order: string, labels: readonly string[]): string[] {
  const steps = order.includes(',') ? order.split(',').map((s) => s.trim()) : Array.from(order);
  for (const s of steps) {
    if (!labels.includes(s)) {
      throw new UserError(`--order '${order}': step '${s}' is not a --kernel label (labels: ${labels.join(', ')}); use letters like ABA, or commas for longer labels: base,patched,base`, 2);
    }
  }
  const unused = labels.filter((l) => !steps.includes(l));
  if (unused.length) throw new UserError(`--order '${order}' never boots kernel ${unused.join(', ')}; add it to the order or drop its --kernel`, 2);
  return steps;
}

/**
 * hintlab's qemu TCG plugin (probes/plugin/cost.c): built on first use with
 * the system C compiler into the native helpers' cache, keyed by its
 * sources, the compiler and the qemu version it is for, and the model it is
 * loaded with (`--cost-model`). The plugin API it is written against is
 * version 1 with `name=value` arguments, which qemu 6.1 to 8.x load; qemu 9 changed the functions it
 * uses, and a qemu built without plugins has no `-plugin` option: both are
 * refused here, before anything boots, naming what is missing.
 */
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../errors.ts';
import { compileCached, defaultCacheDir } from '../proc/native.ts';
import { QEMU_BINARY } from '../launch/qemu.ts';

export const PLUGIN_SOURCE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../probes/plugin');

/** The modelled structures: a set-associative LRU L1i and a 2-bit predictor with a target table. */
export interface CostModel {
  l1iBytes: number;
  l1iWays: number;
  lineBytes: number;
  predictor: '2bit';
}

export const DEFAULT_COST_MODEL: CostModel = { l1iBytes: 32 * 1024, l1iWays: 8, lineBytes: 64, predictor: '2bit' };
/** Entries of the predictor's counter and target tables (probes/plugin/model.h). */
export const PREDICTOR_ENTRIES = 4096;

/** How the model is written: `l1i=32k,8way,64 predictor=2bit`. */
export function describeCostModel(m: CostModel): string {
  const size = m.l1iBytes % 1024 === 0 ? `${m.l1iBytes / 1024}k` : String(m.l1iBytes);
  return `l1i=${size},${m.l1iWays}way,${m.lineBytes} predictor=${m.predictor}`;
}

/** Each of the plugin's l1i=, ways= and line= must lie in 1..2^30 (probes/plugin/cost.c refuses the rest). */
export const PLUGIN_ARG_MAX = 2 ** 30;

const isPow2 = (n: number): boolean => Number.isSafeInteger(n) && n > 0 && Number.isInteger(Math.log2(n));

/** One `l1i=SIZE,WAYSway,LINE` value; every number within what the plugin honours. */
function parseL1i(value: string, bad: (why: string) => never): Pick<CostModel, 'l1iBytes' | 'l1iWays' | 'lineBytes'> {
  const m = /^(\d+)(k?),(\d+)way,(\d+)$/i.exec(value);
  if (!m) bad(`l1i must be SIZE,WAYSway,LINE (e.g. 32k,8way,64), got '${value}'`);
  const l1i = { l1iBytes: Number(m[1]) * (m[2] ? 1024 : 1), l1iWays: Number(m[3]), lineBytes: Number(m[4]) };
  for (const [what, n] of [['size', l1i.l1iBytes], ['ways', l1i.l1iWays], ['line', l1i.lineBytes]] as const) {
    if (n < 1 || n > PLUGIN_ARG_MAX) bad(`l1i ${what} ${n} is outside 1..2^30, the range the cost plugin models`);
  }
  return l1i;
}

/** Parse `--cost-model l1i=32k,8way,64 predictor=2bit` (either part may be left out, neither given twice). */
export function parseCostModel(text: string): CostModel {
  const model = { ...DEFAULT_COST_MODEL };
  const bad = (why: string): never => {
    throw new UserError(`--cost-model '${text}': ${why}; expected e.g. 'l1i=32k,8way,64 predictor=2bit'`, 2);
  };
  const seen = new Set<string>();
  for (const part of text.trim().split(/\s+/).filter(Boolean)) {
    const eq = part.indexOf('=');
    const [key, value] = eq < 0 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)];
    if (key !== 'l1i' && key !== 'predictor') bad(`unknown part '${part}' (the parts are l1i= and predictor=)`);
    if (seen.has(key)) bad(`${key}= is given twice`);
    seen.add(key);
    if (key === 'predictor') {
      if (value !== '2bit') bad(`predictor '${value}' is not modelled (only 2bit)`);
      continue;
    }
    Object.assign(model, parseL1i(value, bad));
  }
  const sets = model.l1iBytes / (model.l1iWays * model.lineBytes);
  if (!isPow2(model.lineBytes) || !isPow2(sets)) bad('the line size and the number of sets (size / ways / line) must be powers of two');
  return model;
}

/**
 * Whether the plugin's header line (`hintlab-cost 1 target=x86_64 l1i=32768
 * ways=8 line=64 predictor=2bit,4096`) names the model it was asked for;
 * null when it does, else what differs.
 */
export function headerMismatch(header: string, model: CostModel): string | null {
  const fields = new Map(header.split(' ').slice(2).map((f) => [f.slice(0, f.indexOf('=')), f.slice(f.indexOf('=') + 1)]));
  const want: [string, string][] = [['l1i', String(model.l1iBytes)], ['ways', String(model.l1iWays)], ['line', String(model.lineBytes)], ['predictor', `${model.predictor},${PREDICTOR_ENTRIES}`]];
  const off = want.filter(([k, v]) => fields.get(k) !== v).map(([k, v]) => `${k}=${fields.get(k) ?? '(none)'} where ${v} was asked`);
  return off.length ? `the cost plugin ran another model than the one asked for (${off.join(', ')}); its counts are not stored` : null;
}

export interface CostPlugin {
  path: string;
  buildId: string;
  qemuVersion: string;
}

/** The qemu version ('7.2.22'), or a UserError naming the package. */
export function qemuVersion(binary = QEMU_BINARY): string {
  const r = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  const m = /version (\d+\.\d+(?:\.\d+)?)/.exec(r.stdout || '');
  if (r.error || r.status !== 0 || !m) throw new UserError(`${binary} is not available or printed no version; install it with 'apt-get install qemu-system-x86'`);
  return m[1]!;
}

/** Refuse a qemu without `-plugin`, or one whose plugin API is not version 1. */
export function checkPluginSupport(version: string, help: string, binary = QEMU_BINARY): void {
  if (!/^-plugin\b/m.test(help)) {
    throw new UserError(`${binary} ${version} has no -plugin option (built without TCG plugin support): --cost needs a qemu with plugins, such as Debian's qemu-system-x86`);
  }
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major < 6 || (major === 6 && minor < 1) || major >= 9) {
    throw new UserError(`${binary} ${version}: hintlab's cost plugin uses the TCG plugin API version 1 with name=value arguments (qemu 6.1 to 8.x); this qemu's API differs. use qemu 6.1..8.x for --cost`);
  }
}

/** Check qemu and build (or reuse) the plugin. */
export function buildCostPlugin(env: NodeJS.ProcessEnv = process.env, binary = QEMU_BINARY): CostPlugin {
  const version = qemuVersion(binary);
  const help = spawnSync(binary, ['--help'], { encoding: 'utf8' }).stdout || '';
  checkPluginSupport(version, help, binary);
  const built = compileCached({
    what: "hintlab's qemu cost plugin",
    sourceDir: PLUGIN_SOURCE_DIR,
    binary: 'hintlab-cost.so',
    cc: env.CC ?? 'cc',
    flags: ['-shared', '-fPIC', '-O2', '-Wall', '-Wextra', '-Werror', '-fvisibility=hidden'],
    cacheDir: defaultCacheDir(env),
    extraKey: `qemu ${version}`,
  });
  return { path: built.path, buildId: built.buildId, qemuVersion: version };
}

/**
 * The `-plugin` argument: the .so, where it writes, the model, and the
 * kernel's function starts when known; `userBranches` counts the
 * directions of user-space jumps too (a guest program's own loop).
 */
export function pluginArg(plugin: Pick<CostPlugin, 'path'>, outFile: string, model: CostModel, symsFile?: string, userBranches = false): string {
  for (const p of [plugin.path, outFile, symsFile ?? '']) if (p.includes(',')) throw new UserError(`${p}: qemu's -plugin option cannot take a path with a comma; use another cache or temporary directory`);
  const syms = symsFile ? `,syms=${symsFile}` : '';
  return `${plugin.path},out=${outFile},l1i=${model.l1iBytes},ways=${model.l1iWays},line=${model.lineBytes}${syms}${userBranches ? ',ubranch=1' : ''}`;
}

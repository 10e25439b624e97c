/**
 * Kernel configuration fragments: the options hintlab needs in every guest
 * kernel, merging a fragment into a .config, and finding the options that
 * `make olddefconfig` dropped because their dependencies are not met (it
 * does so silently).
 */
import { UserError } from '../errors.ts';
import type { OptLevel } from './manifest.ts';

/** One requested setting: `y`, `m`, a literal value, or `n` for "is not set". */
export interface ConfigSetting {
  name: string;
  value: string;
}

/**
 * What a guest kernel needs for hintlab: a serial console to report over, a
 * gzip'd initramfs holding a static ELF /init, /proc (mounted by the probe),
 * and what the probes call: SMP and affinity, futexes for threads, epoll,
 * POSIX timers, user IDs.
 *
 * ACPI is there for the clock and the CPUs, not for power: without it a
 * tinyconfig guest finds no HPET or PM timer, cannot calibrate the TSC
 * under TCG, marks it unstable and falls back to the jiffies clocksource
 * (4 ms resolution: rounds time as 0), and sees only the one CPU SeaBIOS'
 * MP table lists. KVM_GUEST gives kvmclock under KVM.
 *
 * Not seccomp filters: SECCOMP_FILTER depends on NET, which would double a
 * tiny build (add both with --config-fragment).
 *
 * DWARF line tables (DEBUG_INFO_FRAGMENT) come with every build.
 */
export const BUILTIN_FRAGMENT: readonly ConfigSetting[] = [
  ...[
    '64BIT', 'PRINTK', 'TTY', 'SERIAL_8250', 'SERIAL_8250_CONSOLE', 'BLK_DEV_INITRD', 'RD_GZIP', 'BINFMT_ELF',
    'PROC_FS', 'SYSFS', 'DEVTMPFS', 'SMP', 'FUTEX', 'EPOLL', 'MULTIUSER', 'POSIX_TIMERS',
    'ACPI', 'HYPERVISOR_GUEST', 'PARAVIRT', 'KVM_GUEST',
  ].map((name) => ({ name, value: 'y' })),
  ...debugInfoFragment(),
];

/**
 * Debug information, so that `vm --cost` and `trial --cost` can place each
 * branch at its source line (the vmlinux's DWARF line table, read by
 * addr2line): DWARF 5, reduced (line tables and functions, not every
 * structure type: a smaller, faster build that loses nothing for lines).
 * gcc's -g does not change the generated code, and on tinyconfig
 * DEBUG_KERNEL is already selected by EXPERT, so no other option changes
 * (checked on 6.12's .config). What it costs a build is in docs/kernel.md;
 * a user's fragment with `CONFIG_DEBUG_INFO_NONE=y` turns it off.
 */
function debugInfoFragment(): ConfigSetting[] {
  return [
    { name: 'DEBUG_KERNEL', value: 'y' },
    { name: 'DEBUG_INFO_NONE', value: 'n' },
    { name: 'DEBUG_INFO_DWARF5', value: 'y' },
    { name: 'DEBUG_INFO_REDUCED', value: 'y' },
  ];
}

/**
 * What `hintlab behave` observes beyond the syscalls' own results
 * (`kernel build --behave`): /sys/kernel/debug/sched/debug with its
 * custom-slice column and base_slice_ns (DEBUG_FS, SCHED_DEBUG, which needs
 * DEBUG_KERNEL), and utilization clamps (UCLAMP_TASK, which needs the
 * schedutil governor).
 */
export const BEHAVE_FRAGMENT: readonly ConfigSetting[] = [
  'DEBUG_KERNEL', 'DEBUG_FS', 'SCHED_DEBUG', 'CPU_FREQ', 'CPU_FREQ_GOV_SCHEDUTIL', 'UCLAMP_TASK',
].map((name) => ({ name, value: 'y' }));

/**
 * Debug checks for behaviour boots (`kernel build --debug-checks`): BUG
 * (tinyconfig leaves it out, and then WARN() and BUG() print nothing),
 * KALLSYMS (call traces with names), lockdep (PROVE_LOCKING), sleeping in
 * atomic context, list and object corruption, UBSAN's bounds checks. Their
 * reports (WARNING:, BUG:, lockdep splats) on a guest's console are
 * divergences in `hintlab behave`. Not KASAN: its shadow memory and
 * instrumentation make a TCG guest several times slower.
 */
export const DEBUG_CHECKS_FRAGMENT: readonly ConfigSetting[] = [
  'BUG', 'KALLSYMS', 'DEBUG_KERNEL', 'PROVE_LOCKING', 'DEBUG_ATOMIC_SLEEP', 'DEBUG_LIST', 'DEBUG_OBJECTS', 'UBSAN', 'UBSAN_BOUNDS',
].map((name) => ({ name, value: 'y' }));

/** The fragments a build adds by name, between the opt level and the user's fragment. */
export const NAMED_FRAGMENTS = { behave: BEHAVE_FRAGMENT, 'debug-checks': DEBUG_CHECKS_FRAGMENT } as const;
export type NamedFragment = keyof typeof NAMED_FRAGMENTS;

/** -O2 is what distributions ship (branch hints change code there); tinyconfig alone builds -Os. */
export function optFragment(opt: OptLevel): ConfigSetting[] {
  return opt === 'O2'
    ? [{ name: 'CC_OPTIMIZE_FOR_PERFORMANCE', value: 'y' }, { name: 'CC_OPTIMIZE_FOR_SIZE', value: 'n' }]
    : [{ name: 'CC_OPTIMIZE_FOR_SIZE', value: 'y' }, { name: 'CC_OPTIMIZE_FOR_PERFORMANCE', value: 'n' }];
}

const SET = /^CONFIG_([A-Za-z0-9_]+)=(.*)$/;
const UNSET = /^# CONFIG_([A-Za-z0-9_]+) is not set$/;

/** Parse fragment text (`CONFIG_X=y`, `# CONFIG_X is not set`, comments, blank lines); errors name the line. */
export function parseFragment(text: string, file: string): ConfigSetting[] {
  const out: ConfigSetting[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    const set = SET.exec(line);
    const unset = UNSET.exec(line);
    if (set) out.push({ name: set[1]!, value: set[2]! });
    else if (unset) out.push({ name: unset[1]!, value: 'n' });
    else if (line !== '' && !line.startsWith('#')) {
      throw new UserError(`${file}:${i + 1}: not a kernel config line: '${line}' (expected CONFIG_NAME=value or '# CONFIG_NAME is not set')`, 2);
    }
  });
  return out;
}

/** The fragment as .config lines. */
export function fragmentText(settings: readonly ConfigSetting[]): string {
  return settings.map((s) => (s.value === 'n' ? `# CONFIG_${s.name} is not set` : `CONFIG_${s.name}=${s.value}`)).join('\n') + '\n';
}

/** Values of a .config: every set option, `n` for "is not set". Options not mentioned are absent. */
export function parseConfig(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const set = SET.exec(line);
    const unset = UNSET.exec(line);
    if (set) values.set(set[1]!, set[2]!);
    else if (unset) values.set(unset[1]!, 'n');
  }
  return values;
}

/** Merge settings into a .config: later settings win, existing lines are replaced in place. */
export function mergeConfig(base: string, settings: readonly ConfigSetting[]): string {
  const lines = base.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const index = new Map<string, number>();
  lines.forEach((l, i) => {
    const name = SET.exec(l)?.[1] ?? UNSET.exec(l)?.[1];
    if (name) index.set(name, i);
  });
  for (const s of settings) {
    const line = fragmentText([s]).trimEnd();
    const at = index.get(s.name);
    if (at === undefined) {
      index.set(s.name, lines.length);
      lines.push(line);
    } else {
      lines[at] = line;
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Settings the final .config does not honour, described as `CONFIG_X=y (now: not set)`. */
export function droppedSettings(finalConfig: string, wanted: readonly ConfigSetting[]): string[] {
  const values = parseConfig(finalConfig);
  const last = new Map(wanted.map((s) => [s.name, s.value]));
  const dropped: string[] = [];
  for (const [name, want] of last) {
    const got = values.get(name) ?? 'n';
    if (got !== want) dropped.push(`CONFIG_${name}=${want} (now: ${got === 'n' ? 'not set' : got})`);
  }
  return dropped;
}

/**
 * Where a run happens, as one tagged union parsed once from the flags:
 * this machine, boxes over ssh, qemu on this machine, or a `--target` boot
 * site (a LAVA lab, a fake guest: ./factory.ts's SITES). Every conflict
 * between those flags and the mode flags they cannot go with is a row of
 * CONFLICTS, checked here before anything builds, boots or connects (exit
 * status 2, naming the flags and the fix): a trial refused after an hour
 * of kernel builds is the failure this prevents.
 */
import type { Accel } from '../environment/record.ts';
import { UserError } from '../errors.ts';
import { SITES, siteKind, type BootPlace, type SitePlace } from './factory.ts';
import type { SiteKind } from './site.ts';
import { parseSshUrl, type SshAddress } from './ssh-address.ts';

/** Where a command that runs jobs as they are (bench, macro) runs them. */
export type MachinePlace = { kind: 'host' } | { kind: 'ssh'; boxes: SshAddress[] };

/** Where a run happens. */
export type Place = MachinePlace | BootPlace;

/** The commands whose flags say where they run. */
export type PlaceCommand = 'vm' | 'trial' | 'bisect' | 'bench' | 'macro';

/** The commands that boot kernels, here in qemu or on a `--target` boot site. */
type BootCommand = 'vm' | 'trial' | 'bisect';

/** The flags that say where a run happens, and the mode flags that conflict with them, as commander gives them. */
export interface PlaceFlags {
  /** `--target`: none, one (vm, trial) or the repeatable list (bench, macro). */
  target: readonly string[];
  /** vm's `--accel`. */
  accel?: 'auto' | Accel;
  /** `--cost`; false: trial's `--no-cost`. */
  cost?: boolean;
  costModel?: string;
  /** bisect's `--metric` (a cost counter: it asks for the cost plugin as `--cost` does). */
  metric?: string;
  /** bisect's `--stressor`: the boots run stress-ng instead of the probe. */
  followsStressor?: boolean;
  /** trial's `--kvm`. */
  kvm?: boolean;
  /** vm's `--macro`. */
  macro?: boolean;
  /** vm's `--resume`. */
  resume?: boolean;
  /** vm's `--repeat`. */
  repeat?: number;
  /** bench's `--switch-file`. */
  switchFile?: readonly string[];
  /** bench's `--json`. */
  json?: boolean;
  /** bench: a B side in the same invocation (`--label-b`, `--inject-seccomp-b`, `--switch-file`, `--inject-work-b`). */
  pairedB?: boolean;
}

/** What a conflict row reads: the flags, whether one was typed, and the boot site `--target` names (by its scheme), if any. */
interface Seen {
  flags: PlaceFlags;
  given: (flag: string) => boolean;
  site: SiteKind<SitePlace['address']> | null;
}

/** A pair (or more) of flags that cannot be given together, for one command. */
interface Conflict {
  command: PlaceCommand;
  /** The flags in conflict, for the reader of this table. */
  flags: readonly string[];
  when(s: Seen): boolean;
  message(s: Seen): string;
}

const costAsked = (f: PlaceFlags): boolean => f.cost === true || f.costModel !== undefined;
/** The trial's flag that asked for the cost model. */
const costFlag = (f: PlaceFlags): string => (f.cost === true ? '--cost' : '--cost-model');
const words = (s: Seen): string => s.site?.words ?? '';
/** The bisect's flag that asked for the cost plugin, as typed. */
const bisectCostFlag = (f: PlaceFlags): string | null => (f.cost === true ? '--cost' : f.costModel !== undefined ? '--cost-model' : f.metric !== undefined ? '--metric' : null);

/** Every conflict of the place flags, in the order they are checked. */
const CONFLICTS: readonly Conflict[] = [
  { command: 'vm', flags: ['--target', '--macro'], when: (s) => s.site !== null && s.flags.macro === true, message: (s) => `--macro does not run on ${words(s)} yet; drop --target or --macro` },
  { command: 'vm', flags: ['--cost', '--macro'], when: (s) => s.flags.macro === true && costAsked(s.flags), message: (s) => `${costFlag(s.flags)} counts the calls of probe profiles, and --macro runs stress-ng instead: drop ${costFlag(s.flags)} or --macro` },
  { command: 'vm', flags: ['--cost-model', '--cost'], when: (s) => s.flags.costModel !== undefined && s.flags.cost !== true, message: () => '--cost-model sets the model of --cost; add --cost' },
  { command: 'vm', flags: ['--cost', '--accel kvm'], when: (s) => s.flags.cost === true && s.flags.accel === 'kvm', message: () => "--cost counts in qemu's emulator (TCG plugin): use --accel tcg (or auto), or drop --cost for KVM timings" },
  { command: 'vm', flags: ['--resume', '--target'], when: (s) => s.flags.resume === true && s.site?.resumes !== true, message: () => '--resume continues an order on a LAVA lab (--target lava://...); a local vm order is rerun whole' },
  { command: 'vm', flags: ['--resume', '--repeat'], when: (s) => s.flags.resume === true && s.flags.repeat !== undefined, message: () => '--resume continues an order with one run per boot (--order); a --repeat design pools boots into one run per kernel, so run it again whole' },
  { command: 'vm', flags: ['--cost', '--target'], when: (s) => s.site !== null && s.flags.cost === true, message: (s) => `--cost needs hintlab's qemu plugin on this machine; it does not run on ${words(s)}: drop --cost or --target` },
  { command: 'vm', flags: ['--accel kvm', '--target'], when: (s) => s.site !== null && s.flags.accel === 'kvm', message: (s) => `--accel kvm: on ${words(s)} the device decides the accelerator; drop --accel (runs are stored as emulated)` },
  { command: 'trial', flags: ['--cost', '--no-cost'], when: (s) => s.given('--cost') && s.given('--no-cost'), message: () => '--cost and --no-cost: give one (or neither, and the patch decides)' },
  { command: 'trial', flags: ['--cost-model', '--no-cost'], when: (s) => s.flags.costModel !== undefined && s.flags.cost === false, message: () => '--cost-model sets the model of --cost; drop --no-cost' },
  { command: 'trial', flags: ['--cost', '--kvm'], when: (s) => costAsked(s.flags) && s.flags.kvm === true, message: (s) => `${costFlag(s.flags)} counts in qemu's emulator (TCG plugin), --kvm measures time: choose one` },
  { command: 'trial', flags: ['--cost', '--target'], when: (s) => costAsked(s.flags) && s.site !== null, message: (s) => `${costFlag(s.flags)} needs hintlab's qemu plugin on this machine; the measured boots of --target run on ${words(s)}: drop ${costFlag(s.flags)} or --target` },
  { command: 'trial', flags: ['--kvm', '--target'], when: (s) => s.site !== null && s.flags.kvm === true, message: (s) => `--kvm: on ${words(s)} (--target) the device decides the accelerator; drop --kvm to count instructions under icount there` },
  { command: 'bisect', flags: ['--cost', '--target'], when: (s) => s.site !== null && bisectCostFlag(s.flags) !== null, message: (s) => `${bisectCostFlag(s.flags)} needs hintlab's qemu plugin on this machine; the boots of --target run on ${words(s)}: drop ${bisectCostFlag(s.flags)} or --target` },
  { command: 'bisect', flags: ['--stressor', '--target'], when: (s) => s.site !== null && s.flags.followsStressor === true, message: (s) => `--stressor boots stress-ng, which does not run on ${words(s)} yet (nor does vm --macro); drop --target, or follow a --profile there` },
  { command: 'bench', flags: ['--switch-file', '--target'], when: (s) => s.flags.target.length > 0 && (s.flags.switchFile?.length ?? 0) > 0, message: () => '--switch-file writes files on this machine, not on a --target box; switch the box by hand between two runs, or use --inject-seccomp-b' },
  { command: 'bench', flags: ['--json', '--label-b', '--target x2'], when: (s) => s.flags.target.length > 1 && s.flags.json === true && s.flags.pairedB === true, message: () => '--json with --label-b takes one --target at a time (each box prints its own pair of runs)' },
];

/** The boot sites each boot command can run on; the first is the one an address of no known scheme is read as. */
const SITES_OF: Record<BootCommand, readonly SitePlace['kind'][]> = { vm: ['lava', 'fake'], trial: ['lava'], bisect: ['lava'] };

/** The kind of boot site `value` names by its scheme, or the command's first. */
function siteKindOf(command: BootCommand, value: string): SitePlace['kind'] {
  const kinds = SITES_OF[command];
  return kinds.find((k) => SITES[k].scheme.test(value)) ?? kinds[0]!;
}

/** The `--target` boxes of bench and macro, each given once. */
function parseBoxes(urls: readonly string[]): SshAddress[] {
  const addresses = urls.map((t) => parseSshUrl(t));
  const normal = addresses.map((a) => a.url);
  const dup = normal.find((u, i) => normal.indexOf(u) !== i);
  if (dup) throw new UserError(`--target ${dup} is given twice; give each box once`, 2);
  return addresses;
}

function check(command: PlaceCommand, seen: Seen): void {
  const hit = CONFLICTS.find((c) => c.command === command && c.when(seen));
  if (hit) throw new UserError(hit.message(seen), 2);
}

/** A boot command's place: qemu here, or the site `--target` names, its address checked. */
function bootPlace(command: BootCommand, flags: PlaceFlags, env: NodeJS.ProcessEnv): BootPlace {
  const value = flags.target[0];
  if (value === undefined) {
    // a bisect counts instructions under -icount: always TCG
    const accel = command === 'vm' ? (flags.accel ?? 'auto') : command === 'trial' && flags.kvm ? 'auto' : 'tcg';
    return { kind: 'qemu', accel, cost: costAsked(flags) && flags.cost !== false ? { model: flags.costModel ?? '' } : null };
  }
  if (flags.target.length > 1) throw new UserError(`--target is given ${flags.target.length} times; ${command} boots on one place: give one --target`, 2);
  const kind = siteKindOf(command, value);
  const address = siteKind(kind).parse(value, env);
  const problem = siteKind(kind).problem(address);
  if (problem) throw new UserError(problem, 2);
  return { kind, address, resume: flags.resume === true } as SitePlace;
}

/**
 * Where the command runs, from its flags: every conflict refused first
 * (UserError, exit status 2), then the addresses parsed and checked.
 * `given` says whether a flag was typed (a default is not).
 */
export function parsePlace(command: BootCommand, flags: PlaceFlags, env: NodeJS.ProcessEnv, given?: (flag: string) => boolean): BootPlace;
export function parsePlace(command: 'bench' | 'macro', flags: PlaceFlags, env: NodeJS.ProcessEnv, given?: (flag: string) => boolean): MachinePlace;
export function parsePlace(command: PlaceCommand, flags: PlaceFlags, env: NodeJS.ProcessEnv, given: (flag: string) => boolean = () => false): Place {
  if (command === 'vm' || command === 'trial' || command === 'bisect') {
    const value = flags.target[0];
    const site = value === undefined ? null : SITES[siteKindOf(command, value)];
    check(command, { flags, given, site });
    return bootPlace(command, flags, env);
  }
  if (flags.target.length === 0) return { kind: 'host' };
  const boxes = parseBoxes(flags.target);
  check(command, { flags, given, site: null });
  return { kind: 'ssh', boxes };
}

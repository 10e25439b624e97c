/**
 * The environment record stored with every run: what kernel, what CPU, what
 * tuning. Every value is read from the machine or recorded as unknown with
 * the reason; nothing is guessed. Settings that add noise become typed
 * warnings printed after the run.
 *
 * Reads go through `SysReader` (./reader.ts) so tests can point it at a fake
 * /proc and /sys. The record's type is in ./record.ts.
 */
import { createHash } from 'node:crypto';
import type { Known } from '../model.ts';
import { fsReader, type SysReader } from './reader.ts';
import type { EnvWarning, HostEnvironment, LoadAvg, MachineFacts, ProbeFacts } from './record.ts';
import { gunzipCapped, MAX_CONFIG_BYTES } from '../gunzip.ts';
import { fixed } from '../format/numbers.ts';

const known = <T>(value: T): Known<T> => ({ known: true, value });
const unknown = (reason: string): Known<never> => ({ known: false, reason });

function text(r: SysReader, path: string): Known<string> {
  const res = r.read(path);
  return res.ok ? known(res.data.toString('utf8').trim()) : unknown(res.reason);
}

function cpuinfoField(r: SysReader, field: string): Known<string> {
  const info = r.read('/proc/cpuinfo');
  if (!info.ok) return unknown(info.reason);
  const m = new RegExp(`^${field}\\s*:\\s*(.*)$`, 'm').exec(info.data.toString('utf8'));
  return m?.[1] !== undefined ? known(m[1].trim()) : unknown(`/proc/cpuinfo has no '${field}' field`);
}

function allowedCpus(r: SysReader): Known<string> {
  const s = r.read('/proc/self/status');
  if (!s.ok) return unknown(s.reason);
  const m = /^Cpus_allowed_list:\s*(.*)$/m.exec(s.data.toString('utf8'));
  return m?.[1] ? known(m[1].trim()) : unknown('/proc/self/status has no Cpus_allowed_list');
}

/** Parse a kernel CPU list such as `0-3,8,10-11`. */
export function parseCpuList(list: string): number[] {
  const out: number[] = [];
  for (const part of list.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [a, b] = part.split('-').map(Number);
    if (a === undefined || !Number.isInteger(a)) continue;
    const end = b !== undefined && Number.isInteger(b) ? b : a;
    for (let c = a; c <= end; c++) out.push(c);
  }
  return out;
}

function configHash(r: SysReader, release: Known<string>): Known<string> {
  const gz = r.read('/proc/config.gz');
  if (gz.ok) {
    try {
      return known(`sha256:${createHash('sha256').update(gunzipCapped(gz.data, MAX_CONFIG_BYTES, '/proc/config.gz', 'its hash is left unknown')).digest('hex').slice(0, 16)} (/proc/config.gz)`);
    } catch (err) {
      return unknown(`/proc/config.gz: ${(err as Error).message}`);
    }
  }
  if (!release.known) return unknown('kernel release unknown, so no /boot/config-* to read');
  const path = `/boot/config-${release.value}`;
  const f = r.read(path);
  if (!f.ok) return unknown(`no /proc/config.gz and ${f.reason}`);
  return known(`sha256:${createHash('sha256').update(f.data).digest('hex').slice(0, 16)} (${path})`);
}

/** `gcc (Debian 12.2.0-14) 12.2.0, GNU ld ...` out of /proc/version. */
export function kernelCompiler(r: SysReader): Known<string> {
  const v = text(r, '/proc/version');
  if (!v.known) return v;
  const m = /^Linux version \S+ \([^()]*\) \((.*)\) #/.exec(v.value);
  return m?.[1] ? known(m[1]) : unknown('/proc/version does not name the compiler');
}

function preemption(r: SysReader, version: Known<string>): Known<string> {
  const dyn = r.read('/sys/kernel/debug/sched/preempt');
  if (dyn.ok) {
    const active = /\(([^)]+)\)/.exec(dyn.data.toString('utf8'));
    if (active?.[1]) return known(`${active[1]} (dynamic)`);
  }
  if (!version.known) return unknown('kernel version string unknown');
  const v = version.value;
  if (v.includes('PREEMPT_DYNAMIC')) return known('dynamic (mode not readable: mount debugfs to see it)');
  if (v.includes('PREEMPT_RT')) return known('full (PREEMPT_RT)');
  if (/\bPREEMPT\b/.test(v)) return known('full');
  return known('none or voluntary (PREEMPT not in the version string)');
}

function governorAndBoost(r: SysReader, cpu: number | null): { governor: Known<string>; boost: Known<string> } {
  const c = cpu ?? 0;
  const governor = text(r, `/sys/devices/system/cpu/cpu${c}/cpufreq/scaling_governor`);
  const noTurbo = r.read('/sys/devices/system/cpu/intel_pstate/no_turbo');
  if (noTurbo.ok) {
    return { governor, boost: known(noTurbo.data.toString().trim() === '1' ? 'off (intel_pstate/no_turbo=1)' : 'on (intel_pstate/no_turbo=0)') };
  }
  const boost = r.read('/sys/devices/system/cpu/cpufreq/boost');
  if (boost.ok) return { governor, boost: known(boost.data.toString().trim() === '1' ? 'on (cpufreq/boost=1)' : 'off (cpufreq/boost=0)') };
  return { governor, boost: unknown('neither intel_pstate/no_turbo nor cpufreq/boost exists (no cpufreq driver exposed)') };
}

function vulnerabilities(r: SysReader): Known<Record<string, string>> {
  const dir = '/sys/devices/system/cpu/vulnerabilities';
  const names = r.list(dir);
  if (!names) return unknown(`${dir} is not readable`);
  const out: Record<string, string> = {};
  for (const n of names) {
    const v = text(r, `${dir}/${n}`);
    out[n] = v.known ? v.value : `unknown (${v.reason})`;
  }
  return known(out);
}

function virtualization(r: SysReader): Known<string> {
  const hv = r.read('/sys/hypervisor/type');
  if (hv.ok) return known(hv.data.toString().trim());
  const flags = cpuinfoField(r, 'flags');
  if (!flags.known) return unknown(flags.reason);
  if (!/\bhypervisor\b/.test(flags.value)) return known('none');
  const vendor = text(r, '/sys/class/dmi/id/sys_vendor');
  return known(vendor.known ? `hypervisor (${vendor.value})` : 'hypervisor (CPU flag; vendor not readable)');
}

/** Read /proc/loadavg. */
export function loadAverage(r: SysReader = fsReader()): Known<LoadAvg> {
  const l = r.read('/proc/loadavg');
  if (!l.ok) return unknown(l.reason);
  const parts = l.data.toString().trim().split(/\s+/).slice(0, 3).map(Number);
  if (parts.length !== 3 || parts.some((n) => !Number.isFinite(n))) return unknown('/proc/loadavg: unexpected format');
  return known(parts as LoadAvg);
}

export interface CollectOptions {
  /** The probe build that will run (a ProbeBuild has these fields and more). */
  probe: ProbeFacts;
  pinnedCpu: number | null;
  injectSeccomp: number | null;
  reader?: SysReader;
}

/** Collect the environment at the start of a run. */
export function collectEnvironment(opts: CollectOptions): HostEnvironment {
  const r = opts.reader ?? fsReader();
  const release = text(r, '/proc/sys/kernel/osrelease');
  const version = text(r, '/proc/sys/kernel/version');
  const smtActive = text(r, '/sys/devices/system/cpu/smt/active');
  const { governor, boost } = governorAndBoost(r, opts.pinnedCpu);
  let host: Known<string>;
  try {
    host = known(r.hostname());
  } catch (err) {
    host = unknown((err as Error).message);
  }
  const env: HostEnvironment = {
    where: 'host',
    schema: 1,
    hostname: host,
    kernel: {
      release,
      version,
      cmdline: text(r, '/proc/cmdline'),
      preemption: preemption(r, version),
      configHash: configHash(r, release),
      compiler: kernelCompiler(r),
    },
    cpu: {
      model: cpuinfoField(r, 'model name'),
      microcode: cpuinfoField(r, 'microcode'),
      online: text(r, '/sys/devices/system/cpu/online'),
      allowed: allowedCpus(r),
      smt: smtActive.known ? known(smtActive.value === '1' ? 'on' : 'off') : smtActive,
      governor,
      boost,
    },
    isolation: {
      isolcpus: text(r, '/sys/devices/system/cpu/isolated'),
      nohzFull: text(r, '/sys/devices/system/cpu/nohz_full'),
    },
    vulnerabilities: vulnerabilities(r),
    virtualization: virtualization(r),
    load: { start: loadAverage(r) },
    probe: {
      buildId: opts.probe.buildId,
      compiler: opts.probe.compiler,
      compilerVersion: opts.probe.compilerVersion,
      flags: opts.probe.flags,
      static: opts.probe.static,
    },
    pinnedCpu: opts.pinnedCpu,
    injectSeccomp: opts.injectSeccomp,
    warnings: [],
  };
  env.warnings = noiseWarnings(env);
  return env;
}

/** Settings known to add noise, as typed warnings (doubtful data is not an exception). */
export function noiseWarnings(env: MachineFacts): EnvWarning[] {
  const w: EnvWarning[] = [];
  const boost = env.cpu.boost;
  if (boost.known && boost.value.startsWith('on')) {
    w.push({ kind: 'turbo-on', message: `turbo/boost is on (${boost.value}): clock frequency varies with load and temperature; disable it for stable numbers` });
  }
  const gov = env.cpu.governor;
  if (gov.known && gov.value !== 'performance') {
    w.push({ kind: 'governor', message: `frequency governor is '${gov.value}', not 'performance'` });
  }
  const virt = env.virtualization;
  if (virt.known && virt.value !== 'none') {
    w.push({ kind: 'virtualized', message: `running virtualized (${virt.value}): the hypervisor adds noise and may change syscall costs` });
  }
  // Only the load before the run says whether other work competed: the value at
  // the end includes this run's own threads (probe helpers, stress-ng), so it is
  // recorded but not warned about.
  const start = env.load.start;
  if (start.known && start.value[0] > 0.5) {
    w.push({ kind: 'load', message: `load average at start was ${fixed(start.value[0], 2)} (> 0.5): other work competed for the CPU` });
  }
  return w;
}

/** Add the end-of-run facts (load average) and recompute the warnings. */
export function finishEnvironment<E extends MachineFacts>(env: E, reader: SysReader = fsReader()): E {
  const done = { ...env, load: { ...env.load, end: loadAverage(reader) } };
  return { ...done, warnings: noiseWarnings(done) };
}

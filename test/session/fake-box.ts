/**
 * A scripted box for session tests: it "boots" a kernel by taking on its
 * release and the token on its command line, runs the probe as a scripted
 * target whose ns/call depend on the kernel it runs (A: 100 + round, B:
 * 120 + round), and keeps a log of what it was asked to do. Each boot, probe
 * job and return can be made to fail by the script.
 */
import type { ProbeBuild } from '../../src/launch/probe-build.ts';
import type { SysReader } from '../../src/environment/reader.ts';
import type { SessionBox } from '../../src/session/runner.ts';
import { bootToken, type BoxFacts } from '../../src/targets/box-facts.ts';
import { scriptedTarget, type ScriptedJob } from '../../src/targets/fake.ts';
import type { HomeKernel } from '../../src/targets/ssh-box.ts';
import type { BootReport, KernelImage, TargetJob } from '../../src/targets/target.ts';
import { fakeSys } from '../environment/fake-sys.ts';

export const probeBuild: ProbeBuild = { path: '/nonexistent', static: true, buildId: 'b1', compiler: 'cc', compilerVersion: 'cc 12', flags: ['-O2'] };

export const HOME: HomeKernel = { release: '6.1.0-57-cloud-amd64', version: '#1 SMP Debian 6.1.192-3', cmdline: 'root=/dev/vda ro', bootId: 'boot-0', hostname: 'box1', bootImage: null, bootInitrd: null };

export interface BoxScript {
  /** An Error fails the n-th boot (0-based) with its message. */
  boot?(kernel: KernelImage, n: number): Error | undefined;
  /** Replaces the probe's answer to the n-th probe job (0-based, over the whole life of this box). */
  probe?(job: TargetJob, n: number, abort: AbortSignal, box: FakeBox): ScriptedJob | undefined;
  returnHome?(): Error | undefined;
  /** The command line the box runs at connection (default: home's). */
  cmdline?: string;
}

/** The rounds a probe job prints on kernel `label`: ns/call = base + round (A 100, B 120). */
export function kernelRounds(args: string[], label: string): ScriptedJob {
  const base = label === 'A' ? 100 : 120;
  const warm = Number(args[args.indexOf('--warmups') + 1]);
  const rounds = Number(args[args.indexOf('--rounds') + 1]);
  const lines = ['@hl1 hello proto=1 kernel=x version=x machine=x86_64 pid1=0'];
  for (let r = 0; r < warm + rounds; r++) {
    const w = r < warm ? 1 : 0;
    lines.push(`@hl1 round profile=getppid idx=${w ? r : r - warm} warmup=${w} ops=1000 elapsed=${(base + r) * 1000} cpu=1`);
  }
  lines.push(`@hl1 done rounds=${rounds} profiles=1`);
  return { lines, code: 0 };
}

export class FakeBox implements SessionBox {
  readonly kind = 'remote' as const;
  readonly name = 'ssh://root@box1';
  readonly log: string[] = [];
  facts: BoxFacts;
  label = 'home';
  private boots = 0;
  private jobs = 0;
  private readonly probe;

  constructor(
    readonly home: HomeKernel,
    private readonly script: BoxScript = {},
  ) {
    this.facts = { ...home, user: 'root', uid: 0, sudo: null, kexec: '/usr/sbin/kexec', kexecKernel: 'ok', systemd: false, grubReboot: null, grubCustomCfg: false, cmdline: script.cmdline ?? home.cmdline };
    this.probe = scriptedTarget((job, _call, abort) => {
      const n = this.jobs++;
      this.log.push(`probe on ${this.label}`);
      return this.script.probe?.(job, n, abort, this) ?? kernelRounds(job.args, this.label);
    }, 'remote');
  }

  get isHome(): boolean {
    const t = bootToken(this.facts.cmdline);
    return this.facts.release === this.home.release && (t === null || t.startsWith('home-'));
  }

  run(job: TargetJob, onLine: (line: string) => void, abort: AbortSignal) {
    return this.probe.run(job, onLine, abort);
  }

  async reader(): Promise<SysReader> {
    // a virtual machine, as the qemu test box is: its runs carry the warning
    const cpuinfo = 'processor\t: 0\nmodel name\t: Test CPU @ 3.00GHz\nflags\t\t: fpu sse2 hypervisor\n';
    return fakeSys({ '/proc/sys/kernel/osrelease': `${this.facts.release}\n`, '/proc/cmdline': `${this.facts.cmdline}\n`, '/proc/cpuinfo': cpuinfo }, this.home.hostname);
  }

  private report(method: BootReport['method'], watchdog: number | null): BootReport {
    return { method, command: method === 'kexec' ? 'kexec -e' : 'reboot', fellBack: null, release: this.facts.release, cmdline: this.facts.cmdline, bootId: this.facts.bootId, copyMs: method === 'reboot' ? 0 : 10, waitedMs: 1500, downAfterMs: 200, attempts: 2, watchdogSeconds: watchdog };
  }

  async boot(kernel: KernelImage, abort: AbortSignal): Promise<BootReport> {
    const n = this.boots++;
    this.log.push(`boot ${kernel.label} ${kernel.token}`);
    if (abort.aborted) throw new Error('interrupted while waiting for the box');
    const err = this.script.boot?.(kernel, n);
    if (err) throw err;
    this.label = kernel.label;
    this.facts = { ...this.facts, release: kernel.release ?? 'unknown', cmdline: `${this.home.cmdline} hintlab.boot=${kernel.token}`, bootId: `boot-${n + 1}` };
    return this.report('kexec', 120);
  }

  async returnHome(abort: AbortSignal): Promise<BootReport | null> {
    this.log.push(`returnHome${abort.aborted ? ' (aborted signal!)' : ''}`);
    const err = this.script.returnHome?.();
    if (err) throw err;
    if (this.isHome) return null;
    this.label = 'home';
    this.facts = { ...this.facts, release: this.home.release, cmdline: this.home.cmdline, bootId: `boot-home-${this.boots}` };
    return this.report('reboot', null);
  }

  async disarm(): Promise<void> {
    this.log.push('disarm');
  }

  async ensureConnected(): Promise<void> {
    this.log.push('ensureConnected');
  }

  async close(): Promise<void> {
    this.log.push('close');
  }
}

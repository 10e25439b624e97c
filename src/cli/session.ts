/**
 * `hintlab session`: A/B/A on a box over ssh across reboots. Parse and
 * check the options into a plan stored as a new session (or find the
 * session to resume), then run it (src/session/runner.ts) on an SshBox.
 */
import type { Command } from 'commander';
import { buildProbe } from '../launch/probe-build.ts';
import { selectProfiles } from '../bench/profiles.ts';
import { PLAN_VERSION, planSteps, sessionKernel, type SessionPlan } from '../session/plan.ts';
import { runSession, type SessionBox } from '../session/runner.ts';
import { dbPathFrom } from '../store/path.ts';
import { Store } from '../store/store.ts';
import { parseSshUrl } from '../targets/ssh-address.ts';
import { type HomeKernel, SshBox } from '../targets/ssh-box.ts';
import { shellLine } from '../shell.ts';
import { VERSION } from '../version.ts';
import { parseOrder, resolveKernel } from '../vm/kernels.ts';
import { repeatOrder } from '../vm/runner.ts';
import { interruptible } from './interrupt.ts';
import { type CliIO, commandLine, invocationOf } from './io.ts';
import { UserError } from '../errors.ts';
import { collect, intOption, labelOption, DB_HELP } from './options.ts';
import { progressBar } from './progress.ts';
import { probePlanOptions, type ProbePlanOptions } from './bench-options.ts';
import { reportSession, sessionEvents } from './session-report.ts';
import { sessionHeadLine, sessionList } from '../report/session.ts';

export interface SessionOptions extends ProbePlanOptions {
  target?: string;
  kernel: string[];
  order?: string;
  repeat?: number;
  initrd: string[];
  append?: string;
  labelPrefix?: string;
  bootTimeout: number;
  watchdog: number;
  keepOnFailure?: boolean;
  resume?: string | true;
  list?: boolean;
  db?: string;
}

/** `--initrd LABEL=FILE` values by label, each label a --kernel's. */
function initrds(opts: SessionOptions, labels: string[], cwd: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const spec of opts.initrd) {
    const eq = spec.indexOf('=');
    const label = spec.slice(0, Math.max(eq, 0));
    if (eq <= 0 || !labels.includes(label)) throw new UserError(`--initrd '${spec}': expected LABEL=FILE with the label of a --kernel (${labels.join(', ')})`, 2);
    out.set(label, new URL(spec.slice(eq + 1), `file://${cwd}/`).pathname);
  }
  return out;
}

/** The plan of a new session from its options, checked before anything connects. */
export function planFrom(opts: SessionOptions, cwd: string): SessionPlan {
  if (!opts.target) throw new UserError('give the box: --target ssh://[user@]host[:port]', 2);
  const target = parseSshUrl(opts.target).url;
  if (opts.kernel.length < 2) throw new UserError('give the kernels to boot: --kernel A=PATH --kernel B=PATH (a bzImage, vmlinuz or `hintlab kernel build` directory each)', 2);
  const resolved = opts.kernel.map((k) => resolveKernel(k, cwd));
  const labels = resolved.map((k) => k.label);
  const dup = labels.find((l, i) => labels.indexOf(l) !== i);
  if (dup) throw new UserError(`--kernel label '${dup}' is given twice; each kernel needs its own label`, 2);
  if (opts.repeat !== undefined && opts.order !== undefined) throw new UserError('--repeat sets the boot order itself (A B B A ...); drop --order, or drop --repeat', 2);
  const order = opts.repeat !== undefined ? repeatOrder(labels, opts.repeat) : parseOrder(opts.order ?? `${labels[0]},${labels[1]},${labels[0]}`, labels);
  try {
    selectProfiles(opts.profile);
  } catch (err) {
    throw new UserError((err as Error).message, 2);
  }
  const initrd = initrds(opts, labels, cwd);
  return {
    version: PLAN_VERSION,
    target,
    kernels: resolved.map((k) => sessionKernel(k.label, k.image, initrd.get(k.label) ?? null)),
    order,
    bench: { profiles: opts.profile, ops: opts.ops ?? null, warmups: opts.warmups, rounds: opts.rounds, processes: opts.processes, cpu: opts.cpu ?? null },
    labelPrefix: opts.labelPrefix ?? null,
    append: opts.append ?? null,
    bootTimeoutSeconds: opts.bootTimeout,
    watchdogSeconds: opts.watchdog,
    keepOnFailure: opts.keepOnFailure === true,
  };
}

/**
 * With --resume only --db may be given: the stored plan is what runs. `given`
 * lists the options typed on the command line (defaults included when typed,
 * e.g. `--rounds 15`), so none is silently ignored.
 */
function checkResumeAlone(given: readonly string[]): void {
  const extra = given.filter((k) => k !== 'resume' && k !== 'db');
  if (extra.length) throw new UserError(`--resume runs the session's stored plan; drop ${extra.map((g) => `--${g.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')}`, 2);
}

/** The session --resume names: the given id, or the newest one not complete. */
function sessionToResume(store: Store, resume: string | true): number {
  if (resume !== true) {
    const id = Number(resume.replace(/^#/, ''));
    if (!Number.isSafeInteger(id) || id < 1) throw new UserError(`--resume '${resume}': expected a session id such as 3 (see hintlab session --list)`, 2);
    const rec = store.sessions.get(id);
    if (!rec) throw new UserError(`no session #${id} in ${store.path}; see hintlab session --list`, 2);
    if (rec.status === 'complete') throw new UserError(`session #${id} is complete (finished ${rec.finishedAt}); nothing to resume`, 2);
    if (rec.live) throw new UserError(`session #${id} is running in another hintlab right now; wait for it, or stop that one first`, 2);
    return id;
  }
  const open = store.sessions.list().filter((r) => r.status !== 'complete' && !r.live);
  const last = open[open.length - 1];
  if (!last) throw new UserError(`no session to resume in ${store.path}: every session there is complete or running`, 2);
  return last.id;
}

async function sessionAction(opts: SessionOptions, io: CliIO, given: readonly string[]): Promise<void> {
  const dbPath = dbPathFrom(opts.db, io.env);
  if (opts.list) {
    // listing reads only: a missing database is said, never created
    const store = Store.openExisting(dbPath);
    try {
      io.stdout(sessionList(store.sessions.list())); return;
    } finally {
      store.close();
    }
  }
  if (opts.resume !== undefined) checkResumeAlone(given);
  const plan = opts.resume === undefined ? planFrom(opts, io.cwd) : null;
  const probe = io.services?.probeBuild ?? buildProbe({ static: true, env: io.env });
  // a session to resume is in an existing database; a new one may create it
  const store = plan ? Store.open(dbPath) : Store.openExisting(dbPath);
  const bar = progressBar(io);
  try {
    let id: number;
    if (plan) id = store.sessions.create({ target: plan.target, plan, command: commandLine(io) }, (newId) => planSteps(plan, newId));
    else {
      id = sessionToResume(store, opts.resume!);
      store.sessions.claim(id);
    }
    const steps = store.sessions.get(id)!.steps.length;
    io.stderr(sessionHeadLine(id, !plan, store.sessions.get(id)!.target, steps));
    const connect = io.services?.sessionBox ?? ((p: SessionPlan, home: HomeKernel | null) => connectBox(p, home, probe, io, (l) => {
      bar.clear();
      io.stderr(`${l}\n`);
    }));
    const result = await interruptible((abort) =>
      runSession(id, { store, probe, abort, connect, command: commandLine(io), invocation: invocationOf(io), hintlabVersion: VERSION, ...sessionEvents(io, bar, () => steps) }),
    );
    bar.clear();
    reportSession(io, store, result, opts.db);
    if (result.state !== 'complete') {
      const resume = shellLine(['hintlab', 'session', '--resume', String(id), ...(opts.db ? ['--db', opts.db] : [])]);
      // the step's whole story was printed as it failed: its first line is enough here
      const why = (result.failure ?? 'interrupted').split('\n')[0];
      const notBack = result.returned.state === 'failed' && !why?.startsWith('the box was not given back') ? `\nthe box was not given back: ${result.returned.reason}` : '';
      throw new UserError(`session #${id} ${result.state === 'interrupted' ? 'was interrupted' : 'stopped'}: ${why}${notBack}\nresume it with: ${resume}`, result.state === 'interrupted' ? 130 : 1);
    }
  } finally {
    bar.clear();
    store.close();
  }
}

/** The real box: an SshBox over the user's OpenSSH ($HINTLAB_SSH_CONFIG as `ssh -F`). */
function connectBox(plan: SessionPlan, home: HomeKernel | null, probe: ReturnType<typeof buildProbe>, io: CliIO, onProgress: (line: string) => void): Promise<SessionBox> {
  return SshBox.connect(
    plan.target,
    { probe, configFile: io.env.HINTLAB_SSH_CONFIG || undefined, env: io.env },
    { bootTimeoutSeconds: plan.bootTimeoutSeconds, watchdogSeconds: plan.watchdogSeconds, home: home ?? undefined, onProgress },
  );
}

export function registerSession(program: Command, io: CliIO): void {
  const cmd = program
    .command('session')
    .description('A/B/A on a box over ssh: boot each kernel of the order there (kexec), run the bench plan, store every boot as a run; the box ends on its own kernel')
    .option('--target <ssh://[user@]host[:port]>', 'the box')
    .option('--kernel <label=path>', 'a kernel to boot: bzImage, vmlinuz or a `hintlab kernel build` directory (repeatable)', collect, [])
    .option('--order <steps>', 'boot order: one letter per boot (ABA, ABABAB) or comma-separated labels (default: A,B,A)')
    .option('--repeat <n>', 'boot each kernel N times in A B B A ... order, each boot its own run', intOption('--repeat', 2))
    .option('--initrd <label=file>', "an initrd on this machine to boot kernel LABEL with (default: the box's /boot/initrd.img-<release>, if there)", collect, [])
    .option('--append <text>', "text added to every test kernel's command line (the box's own, without BOOT_IMAGE=)");
  probePlanOptions(cmd, {
    rounds: 'measured rounds per profile and boot',
    processes: 'probe processes per boot (the boot is the unit of replication: its processes share it)',
    cpu: 'CPU to pin to on the box (default: the last allowed)',
  })
    .option('--label-prefix <text>', 'run labels are <prefix><kernel label>-<boot index> (default: s<session id>-)', labelOption('--label-prefix', true))
    .option('--boot-timeout <s>', 'seconds a boot may take, from the boot command to ssh answering on the new kernel', intOption('--boot-timeout', 10), 300)
    .option('--watchdog <s>', "the box reboots to its default kernel when hintlab's heartbeat is quiet this long while it runs a test kernel", intOption('--watchdog', 10), 120)
    .option('--keep-on-failure', 'after a failure or Ctrl-C, leave the box on the kernel it runs (its watchdog cancelled) instead of returning it')
    .option('--resume [id]', 'resume a session that stopped (default: the newest one not complete), from its next step')
    .option('--list', 'list the sessions and exit')
    .option('--db <path>', DB_HELP)
    .action(async (opts: SessionOptions, command: Command) =>
      sessionAction(opts, io, command.options.map((o) => o.attributeName()).filter((name) => command.getOptionValueSource(name) === 'cli')),
    );
}

/**
 * The ssh target against a real sshd on 127.0.0.1 and the real static
 * probe: the environment read over ssh, the probe copied once and again
 * when it differs, and the probe on the box ending with the connection
 * (master killed, hintlab killed with -9, the laptop gone quiet).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildProbe, type ProbeBuild } from '../../src/launch/probe-build.ts';
import { collectEnvironment } from '../../src/environment/host.ts';
import { fsReader } from '../../src/environment/reader.ts';
import { parseLine } from '../../src/launch/probe-protocol.ts';
import { SshTarget, watchdogScript } from '../../src/targets/ssh.ts';
import { tempDir } from '../helpers/cli.ts';
import { descendants, named, survivorsAfter, waitForTree, type Proc } from '../helpers/procs.ts';
import { requireSsh, startSshd, type TestSshd } from '../helpers/sshd.ts';

const skip = requireSsh();
const FIXTURE = fileURLToPath(new URL('./fixtures/ssh-run.ts', import.meta.url));
let sshd: TestSshd;
let probe: ProbeBuild;
let cache: string;

before(async () => {
  if (skip) return;
  sshd = await startSshd();
  probe = buildProbe({ static: true });
  cache = tempDir('hintlab-remote-cache-');
});
after(async () => {
  await (sshd as TestSshd | undefined)?.stop();
  if (cache) rmSync(cache, { recursive: true, force: true });
});

const connect = (opts: { leaseSeconds?: number; heartbeatMs?: number } = {}) => SshTarget.connect(sshd.url, { configFile: sshd.config, probe, remoteCache: cache, ...opts });

/** Processes running the probe copied under `cache` (the box is this machine). */
function remoteProbes(): Proc[] {
  const out: Proc[] = [];
  for (const d of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (cmd.startsWith(`${cache}/probe-`) && rest[0] !== 'Z') out.push({ pid: Number(d), ppid: Number(rest[1]), comm: 'probe', start: rest[19] ?? '', state: rest[0] ?? '' });
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

async function until<T>(what: string, get: () => T | undefined | false, boundMs = 20_000): Promise<T> {
  const end = Date.now() + boundMs;
  for (;;) {
    const v = get();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const LONG = ['--profile', 'getppid:100000', '--warmups', '0', '--rounds', '100000'];

test('the environment read over ssh is the one read from the files (the box is this machine)', { skip }, async () => {
  const target = await connect();
  try {
    const remote = collectEnvironment({ probe, pinnedCpu: null, injectSeccomp: null, reader: await target.reader() });
    const local = collectEnvironment({ probe, pinnedCpu: null, injectSeccomp: null, reader: fsReader() });
    assert.ok(remote.load.start.known, 'the load average came back');
    for (const e of [remote, local]) {
      e.load = { start: { known: false, reason: 'differs by the second' } };
      e.warnings = e.warnings.filter((w) => w.kind !== 'load');
    }
    assert.deepEqual(remote, local);
    assert.ok(remote.hostname.known && remote.kernel.release.known && remote.cpu.allowed.known);
  } finally {
    await target.close();
  }
});

test('the probe is copied once per build, checked by sha256 before every run, and copied again when it differs', { skip }, async () => {
  const target = await connect();
  try {
    const short = { program: 'probe' as const, args: ['--profile', 'getppid:1000', '--warmups', '0', '--rounds', '2'] };
    const types = async () => {
      const seen: string[] = [];
      const exit = await target.run(short, (l) => {
        const p = parseLine(l);
        if (p.kind === 'event') seen.push(p.event.type);
      }, new AbortController().signal);
      assert.deepEqual(exit.end, { kind: 'exited', code: 0, signal: null }, exit.describe('the probe'));
      return seen;
    };
    assert.deepEqual(await types(), ['hello', 'prepared', 'round', 'round', 'done']);
    assert.equal(target.probeCopies, 1);
    await types();
    assert.equal(target.probeCopies, 1, 'a second run reuses the copy');
    await target.connection.check(`printf x >> ${cache}/probe-${probe.buildId}`, 'corrupting the copy');
    await types();
    assert.equal(target.probeCopies, 2, 'a copy that differs is replaced');
  } finally {
    await target.close();
  }
});

test('a master killed mid-run: the run ends as lost and the probe on the box is gone within seconds', { skip }, async () => {
  const target = await connect();
  try {
    let killed = false;
    const exit = await target.run({ program: 'probe', args: LONG }, () => {
      if (killed) return;
      killed = true;
      const ssh = descendants(target.connection.masterPid!).find((p) => p.comm === 'ssh');
      assert.ok(ssh);
      assert.equal(remoteProbes().length, 1, 'the probe runs on the box');
      process.kill(ssh.pid, 'SIGKILL');
    }, new AbortController().signal);
    assert.equal(exit.end.kind, 'lost', exit.describe('the probe'));
    assert.match((exit.end as { reason: string }).reason, /^the ssh master connection was killed by SIGKILL/);
    assert.match(exit.describe('the probe was cut off'), /^the probe was cut off \(on ssh:\/\/\S+\)\n(.|\n)*command: ssh -F \S+ -p \d+ -l \S+ 127\.0\.0\.1 '\S+\/probe-[0-9a-f]{16} --profile getppid:100000 /);
    const left = await survivorsAfter(remoteProbes(), 5000);
    assert.equal(named(left), '');
  } finally {
    await target.close();
  }
});

test('the probe on the box stops by itself when its stdin goes quiet (the laptop vanished without closing the connection)', { skip }, async () => {
  const target = await connect({ leaseSeconds: 2, heartbeatMs: 500 });
  const stopped: Proc[] = [];
  try {
    let first = true;
    const lines: string[] = [];
    const exit = await target.run({ program: 'probe', args: LONG }, (l) => {
      lines.push(l);
      if (!first) return;
      first = false;
      // a stopped master carries nothing either way: no heartbeat reaches the box, the TCP connection stays up
      const ssh = descendants(target.connection.masterPid!).find((p) => p.comm === 'ssh')!;
      stopped.push(ssh);
      const probes = remoteProbes();
      assert.equal(probes.length, 1);
      process.kill(ssh.pid, 'SIGSTOP');
      void survivorsAfter(probes, 10_000).then((left) => {
        assert.equal(named(left), '', 'the probe stopped while the master was frozen');
        process.kill(ssh.pid, 'SIGCONT');
      });
    }, new AbortController().signal);
    // once the master runs again it delivers what the probe wrote last: it was interrupted, not killed
    assert.deepEqual(exit.end, { kind: 'exited', code: 143, signal: null }, exit.describe('the probe'));
    assert.match(lines.at(-1) ?? '', /^@hl1 interrupted signal=15 /);
  } finally {
    for (const p of stopped) process.kill(p.pid, 'SIGCONT');
    await target.close();
  }
});

test('kill -9 of hintlab mid-run leaves no probe on the box and no ssh here', { skip }, async () => {
  const node = spawn(process.execPath, ['--import', 'tsx', FIXTURE, sshd.url, sshd.config, cache], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    let out = '';
    node.stdout.on('data', (b: Buffer) => void (out += b.toString()));
    await until('the first probe line', () => out.includes('line'), 60_000);
    const here = await waitForTree(node.pid!, (ps) => ps.some((p) => p.comm === 'ssh'));
    const there = remoteProbes();
    assert.equal(there.length, 1, 'the probe runs on the box');
    const exited = new Promise((r) => node.on('exit', r));
    node.kill('SIGKILL');
    await exited;
    const left = await survivorsAfter([...here, ...there], 10_000);
    assert.equal(named(left), '');
  } finally {
    node.kill('SIGKILL');
  }
});

test('Ctrl-C (abort) stops the probe on the box through its stdin: it restores its state and says so', { skip }, async () => {
  const target = await connect();
  try {
    const abort = new AbortController();
    const lines: string[] = [];
    const exit = await target.run({ program: 'probe', args: LONG }, (l) => {
      lines.push(l);
      if (lines.length === 3) abort.abort();
    }, abort.signal);
    assert.deepEqual(exit.end, { kind: 'exited', code: 143, signal: null }, 'the probe ended by itself (128+SIGTERM)');
    assert.match(lines.at(-1) ?? '', /^@hl1 interrupted signal=15 /);
    assert.equal(named(await survivorsAfter(remoteProbes(), 5000)), '');
  } finally {
    await target.close();
  }
});

test('another program runs in a working directory with its files, under a watchdog, and its files come back', { skip }, async () => {
  const target = await connect();
  try {
    const exit = await target.run(
      { program: { path: '/bin/sh' }, args: ['-c', 'cat in.txt; echo made > out.txt; exit 5'], files: [{ path: 'in.txt', data: Buffer.from('hello\n') }], collect: ['out.txt'] },
      () => {},
      new AbortController().signal,
    );
    assert.deepEqual(exit.end, { kind: 'exited', code: 5, signal: null });
    assert.deepEqual(exit.outputTail, ['hello']);
    assert.equal(exit.collected.get('out.txt')?.toString(), 'made\n');
  } finally {
    await target.close();
  }
});

test('the watchdog script is plain POSIX sh', () => {
  assert.equal(
    watchdogScript(['/usr/bin/stress-ng', '--yaml', 'a b.yaml']),
    "exec 3<&0 </dev/null\n/usr/bin/stress-ng --yaml 'a b.yaml' &\np=$!\n{ while IFS= read -r _ <&3; do :; done; kill -TERM $p 2>/dev/null; } &\nw=$!\nwait $p; rc=$?\nkill $w 2>/dev/null\nexit $rc",
  );
});

/**
 * `hintlab bench --target ssh://...` end to end against real sshd servers
 * on 127.0.0.1 (the "boxes" are this machine) with the real static probe:
 * the stored run, several boxes in parallel, a connection dropped mid-run,
 * Ctrl-C and kill -9 of hintlab, and the errors a user meets first.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildProbe } from '../../src/launch/probe-build.ts';
import { Store } from '../../src/store/store.ts';
import { CLI_FROM_SOURCE, runCli, tempDir } from '../helpers/cli.ts';
import { descendants, named, survivorsAfter, waitForTree, type Proc } from '../helpers/procs.ts';
import { requireSsh, startSshd, type TestSshd } from '../helpers/sshd.ts';

const skip = requireSsh();
let box1: TestSshd;
let box2: TestSshd;
let dir: string;
let remoteProbe: string;

before(async () => {
  if (skip) return;
  [box1, box2] = await Promise.all([startSshd(), startSshd()]);
  dir = tempDir();
  remoteProbe = `/.cache/hintlab/probe-${buildProbe({ static: true }).buildId}`;
});
after(async () => {
  await Promise.all([(box1 as TestSshd | undefined)?.stop(), (box2 as TestSshd | undefined)?.stop()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

let dbs = 0;
function env(box: TestSshd = box1): NodeJS.ProcessEnv {
  return { ...process.env, HINTLAB_SSH_CONFIG: box.config, HINTLAB_DB: join(dir, `db-${++dbs}.sqlite`) };
}
const SMALL = ['--profile', 'getppid,sched_getattr', '--ops', '2000', '--warmups', '1', '--rounds', '4', '--processes', '2'];
const LONG = ['--profile', 'getppid', '--ops', '200000', '--warmups', '0', '--rounds', '40', '--processes', '1'];

/** Probes running from the copy on the box (the box is this machine). */
function probesOnBox(): Proc[] {
  const out: Proc[] = [];
  for (const d of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const argv = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (argv[0]?.endsWith(remoteProbe) && rest[0] !== 'Z') out.push({ pid: Number(d), ppid: Number(rest[1]), comm: 'probe', start: rest[19] ?? '', state: rest[0] ?? '' });
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** Measured rounds stored so far in the database at `path`, read only (hintlab may be writing it). */
function storedRounds(path: string): number {
  if (!existsSync(path)) return 0;
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare('SELECT count(*) AS n FROM rounds WHERE warmup = 0').get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0; // not created yet
  }
}

async function until(what: string, ok: () => boolean, boundMs = 120_000): Promise<void> {
  const end = Date.now() + boundMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

test('bench --target stores the run a local bench stores, its environment read on the box and tagged remote; compare refuses to mix the two', { skip }, async () => {
  const e = env();
  const remote = await runCli(['bench', '--target', box1.url, ...SMALL, '--label', 'R'], { env: e });
  assert.equal(remote.code, 0, remote.stderr);
  assert.match(remote.stdout, new RegExp(`^${box1.url}\\nrun #1 'R': bench, kernel \\S+, complete`));
  const local = await runCli(['bench', ...SMALL, '--label', 'L'], { env: e });
  assert.equal(local.code, 0, local.stderr);
  const store = Store.open(e.HINTLAB_DB!);
  try {
    const [r, l] = [store.resolveRun('R'), store.resolveRun('L')];
    const shape = (run: typeof r) => ({
      kind: run.kind,
      unit: run.unit,
      status: run.status,
      params: { ...run.params, extra: { ...run.params.extra, invocation: null } },
      rounds: run.rounds.map((x) => [x.subject, x.index, x.replicate, x.warmup, x.ops]),
      environment: Object.keys(run.environment).filter((k) => k !== 'remote' && k !== 'where').sort(),
    });
    assert.deepEqual(shape(r), shape(l));
    assert.equal(r.environment.where, 'remote');
    assert.deepEqual(r.environment.remote, { hostname: (r.environment.hostname as { value: string }).value, url: box1.url });
    assert.equal(l.environment.where, 'host');
    assert.equal(l.environment.remote, undefined);
    assert.deepEqual((r.environment.probe as { static: boolean }).static, true);
    assert.ok((r.environment.load as { end?: { known: boolean } }).end?.known, 'the load at the end was read on the box');
  } finally {
    store.close();
  }
  const cmp = await runCli(['compare', 'L', 'R'], { env: e });
  assert.equal(cmp.code, 1);
  assert.match(cmp.stderr, new RegExp(`remote\\.url: A = 'not recorded', B = '${box1.url}'`));
});

test('two --target boxes each measure a complete run, labelled with its box', { skip }, async () => {
  // one client config knows both host keys
  const e = env();
  const config = join(dir, 'both.config');
  const known = join(dir, 'both.known_hosts');
  writeFileSync(known, readFileSync(join(box1.dir, 'known_hosts'), 'utf8') + readFileSync(join(box2.dir, 'known_hosts'), 'utf8'));
  writeFileSync(join(box2.dir, 'authorized_keys'), readFileSync(join(box1.dir, 'client.pub')));
  writeFileSync(config, readFileSync(box1.config, 'utf8').replace(/UserKnownHostsFile \S+/, `UserKnownHostsFile ${known}`));
  const res = await runCli(['bench', '--target', box1.url, '--target', box2.url, ...SMALL, '--label', 'P'], { env: { ...e, HINTLAB_SSH_CONFIG: config } });
  assert.equal(res.code, 0, res.stderr);
  const store = Store.open(e.HINTLAB_DB!);
  try {
    const runs = [box1, box2].map((b) => store.resolveRun(`P@127.0.0.1:${b.port}`));
    assert.deepEqual(runs.map((r) => (r.environment.remote as { url: string }).url), [box1.url, box2.url]);
    assert.ok(runs.every((r) => r.status === 'complete'));
  } finally {
    store.close();
  }
});

test('a connection dropped mid-run fails the run naming the box and the rounds kept, which stay stored', { skip }, async () => {
  const e = env();
  const running = runCli(['bench', '--target', box1.url, ...LONG, '--label', 'D'], { env: e });
  await until('a measured round stored', () => storedRounds(e.HINTLAB_DB!) >= 2);
  const master = descendants(process.pid).find((p) => p.comm === 'ssh' && readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split('\0').includes('-M'));
  assert.ok(master, 'the ssh master runs under this process');
  process.kill(master.pid, 'SIGKILL');
  const res = await running;
  assert.equal(res.code, 1);
  const m = new RegExp(`^hintlab: connection to ${box1.url.replace(/\./g, '\\.')} lost after (\\d+) of 40 measured rounds; rounds stored: run #1 is marked failed in \\S+; its (\\d+) measured rounds are kept`).exec(res.stderr);
  assert.ok(m, res.stderr);
  assert.equal(m[1], m[2]);
  const store = Store.open(e.HINTLAB_DB!);
  try {
    const run = store.resolveRun('D');
    assert.equal(run.status, 'failed');
    assert.equal(run.rounds.filter((r) => !r.warmup).length, Number(m[1]));
    assert.ok(Number(m[1]) >= 2);
  } finally {
    store.close();
  }
  assert.equal(named(await survivorsAfter(probesOnBox(), 5000)), '');
});

/** Start the CLI as its own process on a long run; resolves once the probe runs on the box. */
async function hintlabRunning(e: NodeJS.ProcessEnv) {
  const node = spawn(process.execPath, [...CLI_FROM_SOURCE, 'bench', '--target', box1.url, ...LONG], { env: e, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  node.stderr.on('data', (b: Buffer) => void (stderr += b.toString()));
  const exited = new Promise<number | null>((r) => node.on('exit', (c) => r(c)));
  await until('a measured round stored', () => storedRounds(e.HINTLAB_DB!) >= 1);
  const here = await waitForTree(node.pid!, (ps) => ps.some((p) => p.comm === 'ssh'));
  const there = probesOnBox();
  assert.equal(there.length, 1, 'the probe runs on the box');
  return { node, here, there, exited, stderr: () => stderr };
}

test('kill -9 of hintlab mid-run leaves no probe on the box and no ssh here; the rounds stored stay', { skip }, async () => {
  const e = env();
  const h = await hintlabRunning(e);
  try {
    h.node.kill('SIGKILL');
    await h.exited;
    assert.equal(named(await survivorsAfter([...h.here, ...h.there], 10_000)), '');
    assert.ok(storedRounds(e.HINTLAB_DB!) >= 1);
  } finally {
    h.node.kill('SIGKILL');
  }
});

test('Ctrl-C stops the probe on the box, which restores its state; the run is marked failed with its rounds', { skip }, async () => {
  const e = env();
  const h = await hintlabRunning(e);
  try {
    h.node.kill('SIGINT');
    assert.equal(await h.exited, 130, h.stderr());
    assert.match(h.stderr(), /interrupted by signal 15 \(SIGTERM\); the probe restored the task's affinity and scheduling parameters/);
    assert.equal(named(await survivorsAfter([...h.there, ...h.here], 10_000)), '');
  } finally {
    h.node.kill('SIGKILL');
  }
});

test('a box that does not answer, and a malformed address, fail before anything is stored', { skip }, async () => {
  const e = env();
  const down = await runCli(['bench', '--target', 'ssh://nobody@127.0.0.1:1', ...SMALL], { env: e });
  assert.equal(down.code, 1);
  assert.match(down.stderr, /^hintlab: cannot reach ssh:\/\/nobody@127\.0\.0\.1:1 \(ssh: .*Connection refused.*\): check that the box is up/);
  const bad = await runCli(['bench', '--target', 'box1:22', ...SMALL], { env: e });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--target 'box1:22': not an ssh:\/\/ address; give it as ssh:\/\/\[user@\]host\[:port\]/);
  const switched = await runCli(['bench', '--target', box1.url, '--switch-file', '/proc/sys/kernel/timer_migration=0', ...SMALL], { env: e });
  assert.equal(switched.code, 2);
  assert.match(switched.stderr, /--switch-file writes files on this machine, not on a --target box/);
  assert.equal(storedRounds(e.HINTLAB_DB!), 0);
});

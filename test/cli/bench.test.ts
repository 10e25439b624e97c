/**
 * `hintlab bench` end to end with the real probe on this machine: every
 * profile for a short run, bad input rejected, and a kill -9 mid-run.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { buildProbe } from '../../src/launch/probe-build.ts';
import { PROFILES } from '../../src/bench/profiles.ts';
import { CLI_FROM_SOURCE, runCli, tempDir } from '../helpers/cli.ts';
import { requireTool } from '../helpers/tools.ts';

const twoCpus = spawnSync('nproc').stdout.toString().trim() !== '1';

/** Poll the database another process writes until it holds `n` rounds (or 20 s pass). */
async function waitForRounds(db: string, n: number): Promise<number> {
  let stored = 0;
  for (let i = 0; i < 200 && stored < n; i++) {
    await sleep(100);
    try {
      const conn = new Database(db, { readonly: true, fileMustExist: true });
      stored = (conn.prepare('SELECT COUNT(*) AS n FROM rounds').get() as { n: number }).n;
      conn.close();
    } catch {
      /* not created yet */
    }
  }
  return stored;
}

test('a short real run of every profile stores every round and prints the table', async () => {
  const db = join(tempDir(), 'h.db');
  const profiles = PROFILES.filter((p) => p.cpus === 1 || twoCpus).map((p) => p.name);
  const res = await runCli(['bench', '--db', db, '--profile', profiles.join(','), '--ops', '200', '--warmups', '1', '--rounds', '3', '--label', 'smoke']);
  assert.equal(res.code, 0, res.stderr);
  for (const p of profiles) assert.match(res.stdout, new RegExp(`^${p} .* 3 x 200$`, 'm'));
  const conn = new Database(db, { readonly: true });
  const row = conn.prepare("SELECT COUNT(*) AS n, MIN(value) AS lo FROM rounds WHERE warmup = 0").get() as { n: number; lo: number };
  conn.close();
  assert.equal(row.n, profiles.length * 3);
  assert.ok(row.lo > 1, `a syscall takes more than 1 ns (got ${row.lo})`);
  const json = await runCli(['export', 'smoke', '--db', db, '--format', 'csv']);
  assert.equal(json.stdout.split('\n')[0], 'run_id,seq,subject,round,replicate,warmup,ops,elapsed_ns,ns_per_call,recorded_at');
  // 3 rounds over the default 3 probe processes: each process does 1 warm-up and 1 measured round
  assert.equal(json.stdout.trim().split('\n').length, 1 + profiles.length * (3 + 3));
});

test('bad flags are rejected with the flag named and nothing stored', async () => {
  const db = join(tempDir(), 'h.db');
  const cases: [string[], RegExp][] = [
    [['--rounds', '0'], /--rounds must be an integer >= 1, got '0'/],
    [['--ops', 'many'], /--ops must be an integer >= 1, got 'many'/],
    [['--profile', 'getpid'], /unknown profile 'getpid' in --profile \(did you mean 'getppid'\?\); known profiles: getppid, /],
    [['--cpu', '4096'], /--cpu 4096 is not in this process's allowed CPUs/],
    [['--inject-seccomp', '1'], /--inject-seccomp must be an integer >= 2/],
  ];
  for (const [args, message] of cases) {
    const res = await runCli(['bench', '--db', db, '--profile', 'getppid', ...args]);
    assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
    assert.match(res.stderr, message);
  }
  const list = await runCli(['runs', '--db', db]);
  assert.match(list.stdout, /no runs in/);
});

test('kill -9 in the middle of a run keeps every completed round, and runs shows it incomplete', { skip: requireTool('pgrep', 'procps') }, async () => {
  const db = join(tempDir(), 'h.db');
  const child = spawn(process.execPath, [...CLI_FROM_SOURCE, 'bench', '--db', db, '--profile', 'getppid', '--ops', '20000', '--warmups', '0', '--rounds', '100000', '--label', 'killed'], { stdio: 'ignore' });
  const stored = await waitForRounds(db, 5);
  child.kill('SIGKILL');
  await new Promise((r) => child.on('exit', r));
  assert.ok(stored >= 5, 'rounds were committed while the run was in progress');
  await sleep(200); // the probe dies with its parent (PR_SET_PDEATHSIG)
  const res = await runCli(['runs', '--db', db]);
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stdout, /#1 +killed +bench .* incomplete/);
  const conn = new Database(db, { readonly: true });
  const after = (conn.prepare('SELECT COUNT(*) AS n FROM rounds').get() as { n: number }).n;
  const bad = (conn.prepare('SELECT COUNT(*) AS n FROM rounds WHERE value <= 0 OR ops != 20000').get() as { n: number }).n;
  conn.close();
  assert.ok(after >= stored, `rounds committed before the kill are still there (${after} >= ${stored})`);
  assert.equal(bad, 0);
  const probes = spawnSync('pgrep', ['-f', `hintlab-probe.*rounds 100000`]).stdout.toString().trim();
  assert.equal(probes, '', 'no probe left running');
});

test('SIGINT makes the probe restore its state, say so, and exit 130', async () => {
  const probe = buildProbe();
  const child = spawn(probe.path, ['--cpu', '0', '--ops', '100000', '--rounds', '100000', '--profile', 'sched_setparam-custom'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  while (!out.includes('@hl1 round')) await sleep(20);
  child.kill('SIGINT');
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  assert.equal(code, 130);
  assert.match(out, /@hl1 interrupted signal=2 #[0-9a-f]{8}\n$/);
});

test('a probe error (pinning to a CPU that does not exist) exits 3 with a framed error line', () => {
  const probe = buildProbe();
  const r = spawnSync(probe.path, ['--cpu', '4095', '--profile', 'getppid'], { encoding: 'utf8' });
  assert.equal(r.status, 3);
  assert.match(r.stdout, /@hl1 error profile=- round=0 warmup=0 stage=pin call=-1 syscall=- errno=22 message=cannot%20pin%20to%20the%20requested%20CPU #/);
});

test('Ctrl-C stops the probe, marks the run failed with the interruption, and exits 130', async () => {
  const db = join(tempDir(), 'h.db');
  const child = spawn(process.execPath, [...CLI_FROM_SOURCE, 'bench', '--db', db, '--profile', 'getppid', '--ops', '20000', '--warmups', '0', '--rounds', '100000'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  await waitForRounds(db, 2);
  child.kill('SIGINT');
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  assert.equal(code, 130, stderr);
  assert.match(stderr, /interrupted by signal 2 \(SIGINT\); the probe restored the task's affinity and scheduling parameters/);
  const res = await runCli(['runs', '--db', db]);
  assert.match(res.stdout, /#1 .* failed/);
});

test('a run records its arguments as typed and the working directory, for the reproduce lines', async () => {
  const db = join(tempDir(), 'h.db');
  const argv = ['bench', '--db', db, '--profile', 'getppid', '--ops', '200', '--warmups', '0', '--rounds', '1', '--processes', '1', '--label', 'typed'];
  const res = await runCli(argv);
  assert.equal(res.code, 0, res.stderr);
  const conn = new Database(db, { readonly: true });
  const row = conn.prepare("SELECT params_json FROM runs WHERE label = 'typed'").get() as { params_json: string };
  conn.close();
  assert.deepEqual(JSON.parse(row.params_json).extra.invocation, { argv, cwd: process.cwd() });
});

test("the probe's parameters of every profile are stored with the run and shown by runs --verbose", async () => {
  const db = join(tempDir(), 'h.db');
  const profiles = 'select-1000,mincore-256k,sched_setparam-custom,getppid';
  const res = await runCli(['bench', '--db', db, '--profile', profiles, '--ops', '50', '--warmups', '0', '--rounds', '2', '--processes', '2', '--label', 'p']);
  assert.equal(res.code, 0, res.stderr);
  const conn = new Database(db, { readonly: true });
  const params = JSON.parse((conn.prepare("SELECT params_json FROM runs WHERE label = 'p'").get() as { params_json: string }).params_json);
  conn.close();
  const probe = (s: string) => params.subjectParams[s].probe;
  // select scans every descriptor below nfds: the first duplicate's number decides it, so it is read at run time.
  assert.equal(probe('select-1000').fds, 1000);
  assert.equal(probe('select-1000').nfds, Number(probe('select-1000').fd_last) + 1);
  assert.equal(probe('mincore-256k').resident_pages * 2, probe('mincore-256k').pages);
  assert.equal(probe('sched_setparam-custom').slice_ns, 10_000_000);
  assert.equal(typeof probe('sched_setparam-custom').default_slice_ns, 'number');
  assert.deepEqual(probe('getppid'), {});
  assert.equal(params.subjectParams['select-1000'].ops, 50, "hintlab's own parameters are kept");
  const shown = await runCli(['runs', 'p', '--verbose', '--db', db]);
  assert.match(shown.stdout, /^ {2}sched_setparam-custom: call=sched_setparam, ops=50, cpus=1; probe: pid=0, priority=0, slice_ns=10000000, default_slice_ns=\d+$/m);
  assert.match(shown.stdout, /^ {2}select-1000: .*; probe: fds=1000, timeout=0, nfds=\d+, fd_first=\d+, fd_last=\d+$/m);
});

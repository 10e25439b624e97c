/**
 * `hintlab bench` with a B side, end to end with the real probe: two runs
 * from one invocation, and the switched file restored after a normal end,
 * Ctrl-C, SIGTERM, SIGHUP and kill -9.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCli, tempDir, CLI_FROM_SOURCE } from '../helpers/cli.ts';

// Many short probe processes, so the first B process starts within seconds
const LONG = ['--profile', 'getppid', '--ops', '5000', '--warmups', '0', '--rounds', '2000', '--processes', '1000'];

/** Poll until `path` holds `want` or `seconds` pass; returns what it last held. */
async function waitForContents(path: string, want: string, seconds: number): Promise<string> {
  let have = readFileSync(path, 'utf8');
  for (let i = 0; i < seconds * 20 && have !== want; i++) {
    await sleep(50);
    have = readFileSync(path, 'utf8');
  }
  return have;
}

function knob(contents: string): string {
  const path = join(tempDir(), 'knob');
  writeFileSync(path, contents);
  return path;
}

test('one invocation stores A and B, compare reads them, and the switched file is restored', async () => {
  const db = join(tempDir(), 'h.db');
  const path = knob('0\n');
  const res = await runCli(['bench', '--db', db, '--profile', 'getppid', '--ops', '2000', '--time', '1',
    '--label', 'plain', '--label-b', 'filtered', '--inject-seccomp-b', '64', '--switch-file', `${path}=1`]);
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stdout, /run #1 'plain'[\s\S]*run #2 'filtered'/);
  // a per-process difference and a switched file together: two processes taking turns, the file switched before every block
  assert.match(res.stdout, /design: alternation: an A and a B probe process taking turns on CPU \d+, \d+ pairs of 2-round blocks in random ABBA order \(seed \d+\), fresh processes every 25 pairs, rounds timed on each probe thread's CPU clock \(A = 'plain', B = 'filtered'\); compare with: hintlab compare plain filtered/);
  assert.equal(readFileSync(path, 'utf8'), '0\n');
  const cmp = await runCli(['compare', '--db', db, 'plain', 'filtered']);
  assert.equal(cmp.code, 0, cmp.stderr);
  assert.match(cmp.stdout, /injectSeccomp +off +64 +\(expected\)/);
  assert.match(cmp.stdout, new RegExp(`switchFiles +${path}=0 +${path}=1 +\\(expected\\)`));
});

test('--json prints both runs as one JSON array, A first', async () => {
  const db = join(tempDir(), 'h.db');
  const res = await runCli(['bench', '--db', db, '--profile', 'getppid', '--ops', '500', '--warmups', '0', '--rounds', '2', '--processes', '2', '--inject-seccomp-b', '0', '--design', 'processes', '--json']);
  assert.equal(res.code, 0, res.stderr);
  const docs = JSON.parse(res.stdout) as { run: { label: string; params: { extra: { interleave: { side: string } } } }; rounds: { replicate: number }[] }[];
  assert.deepEqual(docs.map((d) => [d.run.label, d.run.params.extra.interleave.side]), [['A', 'A'], ['B', 'B']]);
});

test('--design abbaab measures six runs in ABBAAB order and compare judges them on the run levels', async () => {
  const db = join(tempDir(), 'h.db');
  const res = await runCli(['bench', '--db', db, '--profile', 'getppid', '--ops', '500', '--warmups', '0', '--rounds', '4', '--processes', '2', '--label', 'a', '--label-b', 'b', '--inject-seccomp-b', '64', '--design', 'abbaab', '--json']);
  assert.equal(res.code, 0, res.stderr);
  type Doc = { run: { params: { extra: { processes: number; interleave: { order: string; design: string; processesPerRun: number } } } }; rounds: { replicate: number; warmup: boolean }[] };
  const docs = JSON.parse(res.stdout) as Doc[];
  for (const d of docs) {
    assert.equal(d.run.params.extra.interleave.order, 'ABBAAB', 'the order of the runs, each of 2 processes');
    assert.equal(d.run.params.extra.interleave.design, 'abbaab');
    assert.equal(d.run.params.extra.interleave.processesPerRun, 2);
    assert.equal(d.run.params.extra.processes, 6);
    // 3 runs x 2 processes x 2 rounds: units 0-5, two rounds each
    assert.deepEqual([...new Set(d.rounds.map((r) => r.replicate))].sort(), [0, 1, 2, 3, 4, 5]);
    assert.equal(d.rounds.length, 12);
  }
  const cmp = await runCli(['compare', '--db', db, 'a', 'b']);
  assert.equal(cmp.code, 0, cmp.stderr);
  assert.match(cmp.stdout, /Design: abbaab: 3 runs per side in ABBAAB order \(A B B A A B\), each of 2 probe processes, judged on the run levels with a linear drift fitted beside the change \(t with 3 degrees of freedom\)\./);
  assert.match(cmp.stdout, /drift-model t p = /);
});

// A real sysctl in a network namespace of its own: switching it cannot disturb anything else on the machine.
const TTL = '/proc/sys/net/ipv4/ip_default_ttl';
const netns = spawnSync('unshare', ['-n', 'true']).status === 0;

test('a real sysctl (ip_default_ttl in a private network namespace) is switched for B and holds its original value at the end', { skip: netns ? false : 'unshare -n is not permitted here' }, () => {
  const db = join(tempDir(), 'h.db');
  const script = `cat ${TTL}; "$0" "$1" "$2" "$3" bench --db "$4" --profile getppid --ops 500 --warmups 0 --rounds 2 --processes 1 --design processes --switch-file ${TTL}=99 >/dev/null && cat ${TTL}`;
  const r = spawnSync('unshare', ['-n', 'sh', '-c', script, process.execPath, ...CLI_FROM_SOURCE, db], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const [before, after] = r.stdout.trim().split('\n');
  assert.equal(after, before, 'restored inside the namespace');
  const runs = spawnSync(process.execPath, [...CLI_FROM_SOURCE, 'runs', 'B', '--verbose', '--db', db], { encoding: 'utf8' });
  assert.match(runs.stdout, new RegExp(`switchFiles.*${TTL}=99`));
});

test('kill -9 of hintlab mid-run: the watchdog writes the original value back within 5 s', async () => {
  const db = join(tempDir(), 'h.db');
  const path = knob('original\n');
  const child = spawn(process.execPath, [...CLI_FROM_SOURCE, 'bench', '--db', db, ...LONG, '--switch-file', `${path}=switched`], { stdio: 'ignore' });
  try {
    // A runs first; the file shows B's value once the first B process starts
    assert.equal(await waitForContents(path, 'switched', 30), 'switched', 'the B side started');
  } finally {
    child.kill('SIGKILL');
  }
  await new Promise((r) => child.on('exit', r));
  assert.equal(await waitForContents(path, 'original\n', 5), 'original\n');
});

test('bad B-side flags are refused with the flag named and nothing stored', async () => {
  const db = join(tempDir(), 'h.db');
  const path = knob('1\n');
  const cases: [string[], RegExp][] = [
    [['--switch-file', path], /--switch-file takes PATH=VALUE/],
    [['--switch-file', `${path}=2`, '--switch-file-a', '/other=1'], /--switch-file-a \/other: no --switch-file names that path/],
    [['--switch-file', `${path}=2`, '--switch-file-a', `${path}=5`], /holds '1', not that value/],
    [['--switch-file', '/nonexistent/knob=2'], /--switch-file \/nonexistent\/knob: cannot read it \(ENOENT\)/],
    [['--inject-seccomp-b', '1'], /--inject-seccomp-b must be 0 \(no filter\) or at least 2/],
    [['--label', 'X', '--label-b', 'X'], /A and B need different labels/],
    [['--label-b', 'B', '--design', 'pairs'], /--design must be one of processes, duet, alternation, abbaab, got 'pairs'/],
    [['--inject-work-b', '3x'], /--inject-work-b takes N \(0\.\.65504 additions per call, up to three decimals: 3\.5 runs 3 or 4 per round, 3\.5 on average\) or PCT% \(e\.g\. 3%\), got '3x'/],
    [['--inject-work-b', '3.1416'], /--inject-work-b takes N .* got '3\.1416'/],
    [['--label-b', 'B', '--clock', 'tsc'], /--clock must be wall or cpu, got 'tsc'/],
    [['--switch-file', `${path}=2`, '--design', 'duet'], /--design duet runs A and B at the same time, so a global --switch-file cannot tell them apart/],
  ];
  for (const [args, message] of cases) {
    const res = await runCli(['bench', '--db', db, '--profile', 'getppid', '--rounds', '2', ...args]);
    assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
    assert.match(res.stderr, message);
  }
  assert.equal(readFileSync(path, 'utf8'), '1\n');
  assert.match((await runCli(['runs', '--db', db])).stdout, /no runs in/);
});

// Ctrl-C, kill (SIGTERM), the terminal closing (SIGHUP)
for (const [signal, code, signo] of [['SIGINT', 130, 2], ['SIGTERM', 143, 15], ['SIGHUP', 129, 1]] as const) {
  test(`${signal} mid-run is reported as ${signal}, restores the file, fails both runs and exits ${code}`, async () => {
    const db = join(tempDir(), 'h.db');
    const path = knob('original\n');
    const child = spawn(process.execPath, [...CLI_FROM_SOURCE, 'bench', '--db', db, ...LONG, '--switch-file', `${path}=switched`], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      assert.equal(await waitForContents(path, 'switched', 30), 'switched');
    } finally {
      child.kill(signal);
    }
    const status = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    assert.equal(status, code, stderr);
    assert.equal(readFileSync(path, 'utf8'), 'original\n', 'restored by hintlab before it exits');
    assert.doesNotMatch(stderr, /hintlab watchdog:/, 'not left to the watchdog');
    // a probe in flight gets the same signal and says which (or dies of it before its handler is installed);
    // between two probe processes no probe gets it, and the reason names it
    assert.match(stderr, new RegExp(`^hintlab: (A \\('A'\\)|B \\('B'\\)): (interrupted by signal ${signo} \\(${signal}\\)|probe killed by ${signal}|interrupted before its next probe process \\(${signal}\\))`));
    const runs = await runCli(['runs', '--db', db]);
    assert.match(runs.stdout, /#1 +A .* failed\n#2 +B .* failed/);
  });
}

test("another user's file is refused without --force and switched (and restored) with it", async () => {
  const db = join(tempDir(), 'h.db');
  const path = knob('theirs\n');
  chownSync(path, 65534, 65534);
  const args = ['bench', '--db', db, '--profile', 'getppid', '--ops', '500', '--warmups', '0', '--rounds', '2', '--processes', '1', '--switch-file', `${path}=mine`];
  const refusedRun = await runCli(args);
  assert.equal(refusedRun.code, 2, refusedRun.stderr);
  assert.match(refusedRun.stderr, /not a kernel knob .* pass --force if that is what you mean/);
  const forced = await runCli([...args, '--force']);
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal(readFileSync(path, 'utf8'), 'theirs\n');
});

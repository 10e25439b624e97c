/**
 * `hintlab session` end to end on a scripted box (services.sessionBox): what
 * it prints as each step happens and at the end, a failed session and its
 * --resume, --list, and the usage errors a user meets first. The real box
 * (a qemu guest over ssh) is test/session/qemu-*.test.ts.
 */
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Store } from '../../src/store/store.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { writeFakeBzImage } from '../session/bzimage.ts';
import { FakeBox, HOME, probeBuild, type BoxScript } from '../session/fake-box.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));
const imageA = writeFakeBzImage(join(dir, 'vmlinuz-a'), '6.1.0-47-cloud-amd64', '#1 SMP Debian 6.1.170-3');
const imageB = writeFakeBzImage(join(dir, 'vmlinuz-b'), '6.1.0-57-cloud-amd64', '#1 SMP Debian 6.1.192-3');

let dbs = 0;
const newDb = () => join(dir, `cli-${++dbs}.db`);
const PLAN = ['--target', 'ssh://root@box1', '--kernel', `A=${imageA}`, '--kernel', `B=${imageB}`, '--profile', 'getppid', '--ops', '1000', '--warmups', '1', '--rounds', '4', '--processes', '1', '--label-prefix', 'P-'];

function services(script: BoxScript = {}, boxes: FakeBox[] = []) {
  return {
    probeBuild,
    sessionBox: async () => {
      const box = new FakeBox(HOME, script);
      boxes.push(box);
      return box;
    },
  };
}

test('a session prints each step as it happens, then the boots table and the compare command joining each kernel\'s boots', async () => {
  const db = newDb();
  const res = await runCli(['session', ...PLAN, '--order', 'ABAB', '--db', db], { services: services() });
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stderr, /^session #1: ssh:\/\/root@box1, 4 steps$/m);
  assert.match(res.stderr, /^ssh:\/\/root@box1 runs 6\.1\.0-57-cloud-amd64 \(root=\/dev\/vda ro\); at the end it goes back to 6\.1\.0-57-cloud-amd64 by a reboot to its default entry \(no \/boot\/vmlinuz-6\.1\.0-57-cloud-amd64 there for kexec\)$/m);
  assert.match(res.stderr, /^step 1\/4: booting kernel A \(6\.1\.0-47-cloud-amd64\) for P-A-1$/m);
  assert.match(res.stderr, /^step 1\/4: image copied or checked in 0\.0 s, kexec -e: up after 1\.5 s \(down by 0\.2 s, 2 logins\); runs 6\.1\.0-47-cloud-amd64; watchdog armed \(120 s\); verified hintlab\.boot=s1-1-[0-9a-f]{4}$/m);
  assert.match(res.stderr, /^step 4\/4: P-B-2 complete \(run #4, measured in \d+\.\d s\)\nwarning: P-B-2: running virtualized \(hypervisor/m);
  assert.match(res.stderr, /^back home: reboot: up after 1\.5 s/m);
  // A: 101, 102, 103, 104 ns (median 102.5); B: 121..124 (median 122.5)
  assert.match(res.stdout, /^getppid +102\.5 ±[\d.]+ % +122\.5 ±[\d.]+ % +102\.5 ±[\d.]+ % +122\.5 ±[\d.]+ %$/m);
  assert.match(res.stdout, new RegExp(`^compare with: hintlab compare P-A-1,P-A-2 P-B-1,P-B-2 --db ${db}\\n  \\(fewer than 3 boots per kernel`, 'm'));
  const cmp = await runCli(['compare', 'P-A-1,P-A-2', 'P-B-1,P-B-2', '--db', db]);
  assert.equal(cmp.code, 0, cmp.stderr);
  assert.match(cmp.stdout, /^Units: boots/m);
  assert.match(cmp.stdout, /insufficient units: A has 2 boots and B has 2 boots/);
});

test('--list and --resume on a missing database say there is none and create nothing', async () => {
  const db = join(dir, 'never.db');
  for (const args of [['--list'], ['--resume'], ['--resume', '1']]) {
    const res = await runCli(['session', ...args, '--db', db], { services: services() });
    assert.deepEqual([res.code, res.stderr], [2, `hintlab: no results database at ${db} (run \`hintlab bench\` first, or pass --db)\n`], args.join(' '));
    assert.equal(existsSync(db), false, args.join(' '));
  }
});

test('the resume command of a failed session is quoted for pasting: a --db with a space and a $ stays one word', async () => {
  const db = join(dir, 'my results $HOME.db');
  const res = await runCli(['session', ...PLAN, '--db', db], { services: services({ boot: (_k, n) => (n === 1 ? new Error('never went down') : undefined) }) });
  assert.equal(res.code, 1);
  assert.ok(res.stderr.endsWith(`\nresume it with: hintlab session --resume 1 --db '${db}'\n`), res.stderr);
});

test('a session that fails says why and how to resume it; --resume does the steps left and says it resumed', async () => {
  const db = newDb();
  const res = await runCli(['session', ...PLAN, '--db', db], { services: services({ boot: (_k, n) => (n === 1 ? new Error('ssh://root@box1 never went down after kexec -e') : undefined) }) });
  assert.equal(res.code, 1);
  assert.match(res.stderr, /^step 2\/3: P-B-1 FAILED\n  booting kernel B failed: ssh:\/\/root@box1 never went down after kexec -e$/m);
  assert.match(res.stderr, new RegExp(`hintlab: session #1 stopped: booting kernel B failed: .*\\nresume it with: hintlab session --resume 1 --db ${db}$`, 'm'));
  const list = await runCli(['session', '--list', '--db', db]);
  assert.match(list.stdout, /^#1 +failed +1\/3 steps +ABA +ssh:\/\/root@box1 +box home /m);
  const boxes: FakeBox[] = [];
  const again = await runCli(['session', '--resume', '--db', db], { services: services({}, boxes) });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /^session #1 \(resumed\): ssh:\/\/root@box1, 3 steps$/m);
  assert.doesNotMatch(again.stderr, /step 1\/3/);
  assert.deepEqual(boxes[0]!.log.filter((l) => l.startsWith('boot')).map((l) => l.split(' ')[1]), ['B', 'A']);
  assert.match(again.stdout, /^compare with: hintlab compare P-A-1,P-A-2 P-B-1 /m);
  const done = await runCli(['session', '--resume', '1', '--db', db], { services: services() });
  assert.equal(done.code, 2);
  assert.match(done.stderr, /session #1 is complete \(finished .*\); nothing to resume/);
});

test('Ctrl-C ends the session with exit status 130 and the way to resume it', async () => {
  const db = newDb();
  const res = await runCli(['session', ...PLAN, '--db', db], {
    services: services({
      probe: (_job, n) => {
        if (n !== 0) return undefined;
        process.emit('SIGINT');
        return { lines: ['@hl1 hello proto=1 kernel=x version=x machine=x86_64 pid1=0', '@hl1 interrupted signal=2'], code: 130 };
      },
    }),
  });
  assert.equal(res.code, 130, res.stderr);
  assert.match(res.stderr, /^returning ssh:\/\/root@box1 to 6\.1\.0-57-cloud-amd64$/m);
  assert.match(res.stderr, /hintlab: session #1 was interrupted: .*interrupted by signal 2/);
  assert.match(res.stderr, /resume it with: hintlab session --resume 1 --db /);
});

test('usage errors name the flag and the fix before anything connects', async () => {
  const db = newDb();
  const cases: [string[], RegExp][] = [
    [['--kernel', `A=${imageA}`, '--kernel', `B=${imageB}`], /give the box: --target ssh:\/\/\[user@\]host\[:port\]/],
    [['--target', 'ssh://box1', '--kernel', `A=${imageA}`], /give the kernels to boot: --kernel A=PATH --kernel B=PATH/],
    [['--target', 'box1', '--kernel', `A=${imageA}`, '--kernel', `B=${imageB}`], /--target 'box1': not an ssh:\/\/ address/],
    [[...PLAN, '--order', 'ABC'], /--order 'ABC': step 'C' is not a --kernel label/],
    [[...PLAN, '--order', 'ABA', '--repeat', '3'], /--repeat sets the boot order itself/],
    [[...PLAN, '--initrd', `C=${imageA}`], /--initrd 'C=.*': expected LABEL=FILE with the label of a --kernel \(A, B\)/],
    [[...PLAN, '--initrd', `A=${join(dir, 'nope.img')}`], /--initrd A: .*nope\.img does not exist/],
    [['--target', 'ssh://box1', '--kernel', `A=${join(dir, 'missing')}`, '--kernel', `B=${imageB}`], /--kernel A: .*missing does not exist/],
    [['--resume', '--kernel', `A=${imageA}`], /--resume runs the session's stored plan; drop --kernel$/m],
    // a plan option typed with its default value is not silently ignored either
    [['--resume', '--rounds', '15', '--watchdog', '120'], /--resume runs the session's stored plan; drop --rounds, --watchdog$/m],
    [['--resume', '7'], /no session #7 in /],
    [['--resume'], /no session to resume in .*: every session there is complete or running/],
  ];
  // an existing database without sessions (--resume on a missing one is refused before: see above)
  Store.open(db).close();
  for (const [args, want] of cases) {
    const res = await runCli(['session', ...args, '--db', db], { services: services() });
    assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
    assert.match(res.stderr, want);
  }
});

/**
 * The ssh connection against a real sshd on 127.0.0.1 (test/helpers/sshd.ts):
 * one login for many commands, files written whole, streamed lines, the
 * errors a user meets (unreachable, refused, unknown host key) and a
 * connection that drops under a command.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { UserError } from '../../src/errors.ts';
import { parseSshUrl } from '../../src/targets/ssh-address.ts';
import { SshConnection, SshConnectionLost } from '../../src/targets/ssh-connection.ts';
import { tempDir } from '../helpers/cli.ts';
import { descendants } from '../helpers/procs.ts';
import { requireSsh, startSshd, type TestSshd } from '../helpers/sshd.ts';

const skip = requireSsh();
let sshd: TestSshd;
let conn: SshConnection;

before(async () => {
  if (skip) return;
  sshd = await startSshd();
  conn = await SshConnection.open(parseSshUrl(sshd.url), { configFile: sshd.config });
});
after(async () => {
  await (conn as SshConnection | undefined)?.close();
  await (sshd as TestSshd | undefined)?.stop();
});

const logins = () => (sshd.log().match(/Accepted publickey/g) ?? []).length;

test('commands run over one login and return status, stdout and stderr', { skip }, async () => {
  const before = logins();
  const a = await conn.exec('echo out; echo err >&2; exit 3');
  const b = await conn.exec('printf "%s" "$0"');
  assert.equal(a.code, 3);
  assert.equal(a.stdout.toString(), 'out\n');
  assert.equal(a.stderr, 'err\n');
  assert.equal(b.code, 0);
  assert.equal(logins(), before, `no new login for the commands: ${sshd.log()}`);
});

test('put writes a binary file whole, with its mode, creating its directory under ~', { skip }, async () => {
  const data = Buffer.from([0, 1, 2, 255, 10, 13, 0x27, 0x22]);
  const path = `~/.cache/hintlab-test-${process.pid}/sub dir/f'ile`;
  await conn.put(data, path, 0o750);
  const back = await conn.check(`cat "$HOME"/.cache/hintlab-test-${process.pid}/'sub dir'/"f'ile"`, 'reading back');
  assert.deepEqual(back, data);
  const mode = await conn.check(`stat -c %a "$HOME"/.cache/hintlab-test-${process.pid}/'sub dir'/"f'ile"`, 'stat');
  assert.equal(mode.toString().trim(), '750');
  await conn.check(`rm -r "$HOME"/.cache/hintlab-test-${process.pid}`, 'cleaning up');
});

test('put never writes through a link planted at a temporary name another hintlab used', { skip }, async () => {
  // The box is this machine (sshd on localhost), so the planted link and its victim are local files.
  const dir = tempDir();
  const victim = join(dir, 'victim');
  writeFileSync(victim, 'root only\n');
  const path = join(dir, 'probe');
  // The name an earlier hintlab wrote through: PATH.tmp-hintlab-PID.
  symlinkSync(victim, `${path}.tmp-hintlab-${process.pid}`);
  await conn.put(Buffer.from('probe bytes'), path);
  assert.equal(readFileSync(victim, 'utf8'), 'root only\n');
  assert.equal(readFileSync(path, 'utf8'), 'probe bytes');
});

test('a failing command checked names the box, its stderr and the command to run by hand', { skip }, async () => {
  await assert.rejects(conn.check('ls /no/such/dir', 'listing'), (err: Error) => {
    assert.ok(err instanceof UserError);
    assert.match(err.message, new RegExp(`listing on ${sshd.url.replace(/[.]/g, '\\.')} failed \\(exit 2\\): ls: cannot access '/no/such/dir'`));
    assert.match(err.message, /by hand: ssh -F \S+ -p \d+ -l \S+ 127\.0\.0\.1 'ls \/no\/such\/dir'/);
    return true;
  });
});

test('stream gives every line as it comes, keeps stdin open with heartbeats, and ends with the exit status', { skip }, async () => {
  const lines: string[] = [];
  const end = await conn.stream('echo one; read a; read b; echo two; exit 4', (l) => lines.push(l), new AbortController().signal, { heartbeatMs: 50 });
  assert.deepEqual(lines, ['one', 'two']);
  assert.deepEqual(end, { kind: 'exited', code: 4, stderrTail: [] });
});

test('an abort closes the remote command\'s stdin, so a command watching it can stop cleanly', { skip }, async () => {
  const mark = `/tmp/hintlab-ssh-eof-${process.pid}`;
  const abort = new AbortController();
  const lines: string[] = [];
  const ended = conn.stream(`echo started; cat > /dev/null; echo eof > ${mark}; sleep 30`, (l) => {
    lines.push(l);
    abort.abort();
  }, abort.signal, { graceMs: 2000 });
  const end = await ended;
  assert.equal(end.kind, 'aborted');
  for (let i = 0; i < 50 && !existsSync(mark); i++) await sleep(100);
  assert.ok(existsSync(mark), 'the remote command saw the end of its stdin');
  await conn.check(`rm -f ${mark}`, 'cleaning up');
});

test('an address that does not answer fails with what to check', { skip }, async () => {
  const closed = parseSshUrl(`ssh://nobody@127.0.0.1:${sshd.port === 1 ? 2 : 1}`);
  await assert.rejects(SshConnection.open(closed, { configFile: sshd.config }), (err: Error) => {
    assert.ok(err instanceof UserError);
    assert.match(err.message, /^cannot reach ssh:\/\/nobody@127\.0\.0\.1:1 \(ssh: .*Connection refused.*\): check that the box is up, that sshd listens on 1/);
    return true;
  });
});

test('a key the box does not accept fails naming ssh-copy-id and the agent', { skip }, async () => {
  await assert.rejects(SshConnection.open(parseSshUrl(sshd.url), { configFile: sshd.configWrongKey }), (err: Error) => {
    assert.match(err.message, /refused the login \(ssh: .*Permission denied \(publickey\).*\)\. hintlab logs in without prompting \(BatchMode\): install your public key on the box \('ssh-copy-id /);
    return true;
  });
});

test('an unknown host key fails naming the first connection by hand', { skip }, async () => {
  await assert.rejects(SshConnection.open(parseSshUrl(sshd.url), { configFile: sshd.configUnknownHost }), (err: Error) => {
    assert.match(err.message, /its host key is not in your known_hosts.*Connect once by hand \('ssh -p \d+ \S+@127\.0\.0\.1'\)/);
    return true;
  });
});

test('a master killed under a streamed command: the stream ends as lost, and nothing reconnects behind it', { skip }, async () => {
  const own = await SshConnection.open(parseSshUrl(sshd.url), { configFile: sshd.config });
  try {
    const logged = logins();
    const lines: string[] = [];
    let killed = false;
    const end = await own.stream('while :; do echo tick; sleep 0.1; done', (l) => {
      lines.push(l);
      if (killed) return;
      killed = true;
      const ssh = descendants(own.masterPid!).find((p) => p.comm === 'ssh');
      assert.ok(ssh, 'the master ssh runs under the supervisor');
      process.kill(ssh.pid, 'SIGKILL');
    }, new AbortController().signal);
    assert.equal(end.kind, 'lost');
    assert.match((end as { reason: string }).reason, /the ssh master connection (was killed by SIGKILL|exited)/);
    await assert.rejects(own.exec('true'), SshConnectionLost);
    assert.equal(logins(), logged, 'no second login');
  } finally {
    await own.close();
  }
});

test('a long, %-bearing or ${}-bearing TMPDIR still gives a working connection (the control socket goes under /tmp)', { skip }, async () => {
  const saved = process.env.TMPDIR;
  const base = tempDir();
  try {
    for (const name of ['d'.repeat(90), 'pct%d%h', 'dollar${HOME}x']) {
      const dir = join(base, name);
      mkdirSync(dir);
      process.env.TMPDIR = dir;
      const c = await SshConnection.open(parseSshUrl(sshd.url), { configFile: sshd.config });
      try {
        assert.equal((await c.exec('echo hi')).stdout.toString(), 'hi\n', name);
      } finally {
        await c.close();
      }
    }
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
});

test('close ends the master and removes the control directory', { skip }, async () => {
  const own = await SshConnection.open(parseSshUrl(sshd.url), { configFile: sshd.config });
  const pid = own.masterPid!;
  assert.ok(descendants(pid).some((p) => p.comm === 'ssh'));
  await own.close();
  assert.deepEqual(descendants(pid), []);
  await own.close(); // idempotent
});

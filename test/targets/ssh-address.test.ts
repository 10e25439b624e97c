/**
 * ssh addresses from the command line: shell metacharacters refused with
 * the character named, and every command a message suggests quoted for
 * pasting; the control socket's directory chosen so ssh can bind it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UserError } from '../../src/errors.ts';
import { connectFailure, parseSshUrl } from '../../src/targets/ssh-address.ts';
import { controlBase } from '../../src/targets/ssh-connection.ts';

const refused = (url: string): string => {
  try {
    parseSshUrl(url);
  } catch (err) {
    assert.ok(err instanceof UserError);
    assert.equal(err.exitCode, 2);
    return err.message;
  }
  assert.fail(`${url} was accepted`);
};

test('a host or user with shell metacharacters is refused naming the character', () => {
  assert.match(refused('ssh://a;touch${IFS}x'), /^--target 'ssh:\/\/a;touch\$\{IFS\}x': the host holds ';' \(U\+003B\), which no host name, alias or address has/);
  assert.match(refused('ssh://a$(id)@box'), /the user holds '\$' \(U\+0024\), which no user name has/);
  assert.match(refused('ssh://box`id`'), /the host holds '`' \(U\+0060\)/);
  assert.match(refused("ssh://b'ox"), /the host holds ''' \(U\+0027\)/);
  assert.match(refused('ssh://bo\x1bx'), /^--target 'ssh:\/\/bo\\x1bx': the host holds '\\x1b' \(U\+001B\)/);
});

test('host names, aliases, IPv4 and IPv6 addresses and ordinary users still parse', () => {
  assert.deepEqual(parseSshUrl('ssh://lab.user-1@box_2.example.org:2222'), { url: 'ssh://lab.user-1@box_2.example.org:2222', user: 'lab.user-1', host: 'box_2.example.org', port: 2222 });
  assert.equal(parseSshUrl('ssh://root@10.0.0.5').host, '10.0.0.5');
  assert.equal(parseSshUrl('ssh://[fe80::1]:22').host, 'fe80::1');
});

test('the fallback message quotes the command it suggests, and names no pasteable injection', () => {
  const a = { url: 'ssh://x', user: null, host: 'box', port: 2222 };
  assert.equal(connectFailure(a, 'kex: something odd', 'exited with status 255').message, "cannot connect to ssh://x: ssh exited with status 255 (ssh: kex: something odd); 'ssh -p 2222 box true' should show the same problem (add -v for ssh's account)");
  // an address built by hand with a metacharacter (parseSshUrl refuses it): still quoted word by word
  const odd = { url: 'ssh://odd', user: null, host: 'a;b', port: null };
  assert.match(connectFailure(odd, 'Permission denied (publickey)', 'exited with status 255').message, /'ssh-copy-id 'a;b''.*'ssh 'a;b' true' must work/);
});

test('a control socket ssh could not bind is told as this machine\'s problem, not as one ssh by hand would show', () => {
  const a = { url: 'ssh://x', user: null, host: 'box', port: null };
  const m = connectFailure(a, 'unix_listener: path "/tmp/ddd/master.x" too long for Unix domain socket', 'exited with status 255').message;
  assert.match(m, /could not create hintlab's control socket on this machine .*set TMPDIR to a short writable directory/);
  assert.doesNotMatch(m, /same problem/);
});

test('the control directory is $TMPDIR when ssh can bind there, /tmp when it is long or holds % $ ~', () => {
  assert.equal(controlBase('/var/tmp'), '/var/tmp');
  assert.equal(controlBase(`/tmp/${'d'.repeat(60)}`), '/tmp');
  assert.equal(controlBase('/tmp/pct%d%h'), '/tmp');
  assert.equal(controlBase('/tmp/dollar${HOME}'), '/tmp');
  assert.equal(controlBase('~/tmp'), '/tmp');
});

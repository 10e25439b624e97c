/**
 * A throwaway sshd on 127.0.0.1 for one test file: its own host key, a
 * client key allowed to log in as the current user, and an ssh_config
 * (`-F`) naming that key and a known_hosts holding the host key. OpenSSH
 * expands `~` from the password database, not $HOME, so the client is
 * pointed at these files instead of a fake home.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setPriority, userInfo } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from './cli.ts';
import { requireAll, requireFile, requireTool, type Skip } from './tools.ts';

export const SSHD = '/usr/sbin/sshd';

/** Skip unless sshd and the ssh client are installed. */
export function requireSsh(): Skip {
  return requireAll(requireFile(SSHD, 'openssh-server'), requireTool('ssh', 'openssh-client'), requireTool('ssh-keygen', 'openssh-client'));
}

export interface TestSshd {
  /** `ssh://USER@127.0.0.1:PORT` */
  url: string;
  port: number;
  /** The client's ssh_config (`ssh -F`): key, known_hosts, nothing from ~/.ssh. */
  config: string;
  /** A config whose known_hosts is empty (host key unknown). */
  configUnknownHost: string;
  /** A config whose key the server does not accept. */
  configWrongKey: string;
  dir: string;
  process: ChildProcess;
  /** What sshd logged so far (-e: to stderr). */
  log(): string;
  stop(): Promise<void>;
}

/** A TCP port on 127.0.0.1 nothing listens on now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

function keygen(path: string): void {
  const r = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
}

function clientConfig(path: string, key: string, knownHosts: string): string {
  writeFileSync(
    path,
    ['Host *', `  IdentityFile ${key}`, '  IdentitiesOnly yes', `  UserKnownHostsFile ${knownHosts}`, '  GlobalKnownHostsFile /dev/null', '  StrictHostKeyChecking yes', ''].join('\n'),
  );
  return path;
}

/** Start sshd; resolves once it accepts a login. */
export async function startSshd(): Promise<TestSshd> {
  const dir = tempDir('hintlab-sshd-');
  for (const k of ['host', 'client', 'stranger']) keygen(join(dir, k));
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client.pub')));
  const port = await freePort();
  writeFileSync(join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${readFileSync(join(dir, 'host.pub'), 'utf8')}`);
  writeFileSync(join(dir, 'known_hosts.empty'), '');
  mkdirSync('/run/sshd', { recursive: true });
  const proc = spawn(
    SSHD,
    [
      '-D', '-e', '-p', String(port),
      '-o', 'ListenAddress=127.0.0.1',
      '-h', join(dir, 'host'),
      '-o', `PidFile=${join(dir, 'sshd.pid')}`,
      '-o', `AuthorizedKeysFile=${join(dir, 'authorized_keys')}`,
      '-o', 'PermitRootLogin=prohibit-password',
      '-o', 'StrictModes=no',
      '-o', 'UsePAM=no',
      '-o', 'PasswordAuthentication=no',
      '-o', 'KbdInteractiveAuthentication=no',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  // the probe refuses a nice value other than 0: sessions must not inherit a test run under `nice`
  try {
    if (proc.pid) setPriority(proc.pid, 0);
  } catch {
    /* not root: the sessions keep this process's nice value */
  }
  let log = '';
  proc.stderr.on('data', (b: Buffer) => void (log += b.toString()));
  const config = clientConfig(join(dir, 'ssh_config'), join(dir, 'client'), join(dir, 'known_hosts'));
  const server: TestSshd = {
    url: `ssh://${userInfo().username}@127.0.0.1:${port}`,
    port,
    config,
    configUnknownHost: clientConfig(join(dir, 'ssh_config.unknown'), join(dir, 'client'), join(dir, 'known_hosts.empty')),
    configWrongKey: clientConfig(join(dir, 'ssh_config.stranger'), join(dir, 'stranger'), join(dir, 'known_hosts')),
    dir,
    process: proc,
    log: () => log,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        const gone = new Promise((r) => proc.on('exit', r));
        proc.kill('SIGTERM');
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  for (let i = 0; i < 100; i++) {
    const r = spawnSync('ssh', ['-F', config, '-o', 'BatchMode=yes', '-p', String(port), '127.0.0.1', 'true'], { encoding: 'utf8' });
    if (r.status === 0) return server;
    if (proc.exitCode !== null) break;
    await sleep(100);
  }
  await server.stop();
  throw new Error(`the test sshd did not accept a login: ${log}`);
}

/**
 * A real LAVA lab for the slow tests: scripts/lava-lab.sh starts LAVA from
 * Debian's packages without systemd (postgres, gunicorn, scheduler,
 * publisher, a worker, N qemu devices without KVM) and `down` ends every
 * process it started. A lab already up in the script's state directory (a
 * developer's) is used as it is and left running.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { requireAll, requireFile, requireTool, type Skip } from './tools.ts';

const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'lava-lab.sh');
const PACKAGES = 'lava-server lava-dispatcher lava-dispatcher-host lava-common lavacli (bash scripts/lava-lab.sh install)';

export interface LavaLab {
  /** `lava://127.0.0.1:PORT/qemu`, without the token. */
  target: string;
  token: string;
  /** How long `up` took, in seconds (0 when the lab was already up). */
  upSeconds: number;
  /** The script's own words (its last line says how long it took). */
  log: string;
  stop(): void;
}

/** Skip unless LAVA's packages, root and qemu are there. */
export function requireLava(): Skip {
  return requireAll(
    process.getuid?.() === 0 ? false : 'needs root: LAVA\'s daemons run as root here',
    requireFile('/usr/bin/lava-server', PACKAGES),
    requireFile('/usr/bin/lava-worker', PACKAGES),
    requireTool('pg_ctlcluster', 'postgresql'),
    requireTool('qemu-system-x86_64', 'qemu-system-x86'),
  );
}

function stateDir(env: NodeJS.ProcessEnv): string {
  return env.HINTLAB_LAVA_DIR || '/tmp/hintlab-lava';
}

/** Start the lab (or use the one up), with `devices` qemu devices; throws with the script's output on failure. */
export function startLava(devices = 1, env: NodeJS.ProcessEnv = process.env): LavaLab {
  const dir = stateDir(env);
  const read = () => ({ target: readFileSync(join(dir, 'target'), 'utf8').trim(), token: readFileSync(join(dir, 'token'), 'utf8').trim() });
  if (existsSync(join(dir, 'target')) && existsSync(join(dir, 'token'))) return { ...read(), upSeconds: 0, log: `using the lab up in ${dir}`, stop: () => {} };
  const started = Date.now();
  const up = spawnSync('bash', [SCRIPT, 'up', '--devices', String(devices)], { encoding: 'utf8', env, timeout: 600_000 });
  const log = `${up.stdout}${up.stderr}`;
  const stop = () => {
    const down = spawnSync('bash', [SCRIPT, 'down'], { encoding: 'utf8', env, timeout: 120_000 });
    if (down.status !== 0) throw new Error(`lava-lab.sh down failed (${down.status}):\n${down.stderr}`);
  };
  if (up.status !== 0) {
    stop();
    throw new Error(`lava-lab.sh up failed (${up.status ?? up.signal}):\n${log}`);
  }
  return { ...read(), upSeconds: (Date.now() - started) / 1000, log, stop };
}

/**
 * The lab of one test file: started (with `devices`) before its tests
 * unless `skip` says why not, stopped after them, `dir` removed then too.
 * Returns the lab as it is when a test asks (null when skipped).
 */
export function lavaForTests(skip: Skip, dir: string, devices = 1): () => LavaLab | null {
  let lab: LavaLab | null = null;
  before(() => {
    if (!skip) lab = startLava(devices);
  });
  after(() => {
    lab?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return () => lab;
}

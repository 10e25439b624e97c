/**
 * What does `hintlab macro` add around stress-ng? Interleaves rounds run
 * through hintlab's runner with the same stress-ng command run by hand, and
 * prints (1) the ratio of their bogo-ops/s with its 95 % confidence
 * interval (hintlab only reads stress-ng's YAML, so it should be 1 within
 * noise) and (2) the wall time each hintlab round takes beyond --seconds
 * (stress-ng start-up and teardown, YAML parsing, the SQLite commit).
 *
 *   node --import tsx bench/macro-overhead.ts [--pairs 8] [--stressor yield] [--seconds 1]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processExecutor } from '../src/macro/executor.ts';
import { prepareMacro, runMacro } from '../src/macro/runner.ts';
import { isSample, mean, median, stdev } from '../src/stats/descriptive.ts';
import { studentTQuantile } from '../src/stats/distributions.ts';
import { Store } from '../src/store/store.ts';
import { parseStressNgYaml } from '../src/macro/yaml.ts';

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1]! : dflt;
}

const pairs = Number(arg('--pairs', '8'));
const stressor = arg('--stressor', 'yield');
const seconds = Number(arg('--seconds', '1'));
const dir = mkdtempSync(join(tmpdir(), 'hintlab-macro-overhead-'));
const executor = processExecutor();

/** One round through prepareMacro/runMacro; returns bogo-ops/s and the round's wall time in ms. */
async function viaHintlab(): Promise<{ value: number; wallMs: number }> {
  const store = Store.open(':memory:');
  const plan = await prepareMacro(
    { stressors: [stressor], sets: [], instances: '1', seconds, cooldownSeconds: 0, repeats: 1, cpuList: null, label: null, command: 'bench', hintlabVersion: 'bench' },
    executor,
  );
  const started = performance.now();
  const result = await runMacro(plan, { store, executor });
  const wallMs = performance.now() - started;
  if (result.state !== 'complete') throw new Error(result.reason);
  return { value: result.run.rounds[0]!.value, wallMs };
}

function byHand(): number {
  const yaml = join(dir, 'hand.yaml');
  execFileSync('stress-ng', [`--${stressor}`, '1', '--timeout', `${seconds}s`, '--metrics', '--yaml', yaml], { cwd: dir, stdio: 'ignore' });
  return parseStressNgYaml(readFileSync(yaml, 'utf8'), yaml, stressor).bogoOpsPerSecRealTime;
}

function ci(xs: number[], digits: number): string {
  if (!isSample(xs)) return 'n/a';
  const m = mean(xs);
  const half = (studentTQuantile(0.975, xs.length - 1) * stdev(xs)) / Math.sqrt(xs.length);
  return `${m.toFixed(digits)} (95 % CI ${(m - half).toFixed(digits)} to ${(m + half).toFixed(digits)}, median ${median(xs).toFixed(digits)})`;
}

const ratios: number[] = [];
const overheadMs: number[] = [];
for (let i = 0; i < pairs; i++) {
  const hand = byHand();
  const h = await viaHintlab();
  ratios.push(h.value / hand);
  overheadMs.push(h.wallMs - seconds * 1000);
}
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`stress-ng --${stressor} 1 -t ${seconds}s, ${pairs} interleaved pairs, load average ${load}`);
console.log(`bogo-ops/s via hintlab / by hand: ${ci(ratios, 3)}`);
console.log(`wall time of a one-round hintlab run (environment, stress-ng, YAML, commit) beyond --seconds: ${ci(overheadMs, 0)} ms`);

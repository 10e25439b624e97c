/**
 * `hintlab trial --target lava://...`: the measured boots run as LAVA jobs
 * (the fake REST server, test/helpers/fake-lava.ts) while builds, codegen
 * and behave stay here; the lab's address is in the vm step's key (a local
 * trial does not reuse the lab's boots) and in the reproduce command, the
 * token in neither.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { findProfile } from '../../src/bench/profiles.ts';
import { parseScenarios } from '../../src/behave/scenario.ts';
import { Store } from '../../src/store/store.ts';
import { parseLavaAddress } from '../../src/targets/lava/address.ts';
import type { TrialRequest } from '../../src/trial/request.ts';
import { runTrial } from '../../src/trial/run.ts';
import { tempDir } from '../helpers/cli.ts';
import { type FakeLava, startFakeLava } from '../helpers/fake-lava.ts';
import { requireTool } from '../helpers/tools.ts';
import { miniBuild, miniPatch, miniTree, probeLines, scriptedGuest, unusedProbe } from './fakes.ts';

const skip = requireTool('patch', 'patch') || requireTool('objdump', 'binutils');
const dir = tempDir();
const probe = unusedProbe(dir);
const src = miniTree(dir);
const hint = miniPatch(src, dir, 'hint.patch', 'kernel/sys_impl.c', '\tif (!param || pid < 0)', '\tif (__builtin_expect(!param || pid < 0, 1))');
let fake: FakeLava;
before(async () => {
  fake = await startFakeLava('lab-token');
});
after(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

function request(lava: string | null): TrialRequest {
  return {
    src, patches: [hint], out: join(dir, 'out'), base: 'tinyconfig', fragment: null, opt: 'O2', jobs: 2, debugChecks: false,
    scenarios: parseScenarios('scenario tiny\nsetpriority pid=self nice=3\n', 'tiny.scn'), scenarioArgs: ['tiny.scn'],
    profiles: [findProfile('getppid')!], profileArgs: ['getppid'], ops: 1000, rounds: 5, warmups: 1, repeat: 2, kvm: false,
    maxObjects: 8, thresholdPct: 1, timeoutSeconds: 60, command: 'hintlab trial ...', lava: lava === null ? null : parseLavaAddress(lava, { HINTLAB_LAVA_TOKEN: 'lab-token' }),
    invocation: { argv: ['trial', '--src', src, '--patch', hint], cwd: dir }, db: null, hintlabVersion: 'test',
  };
}

test('the measured boots go to the lab as jobs; behave boots here; the lab is in the key and the reproduce line, the token nowhere', { skip }, async () => {
  let boot = 0;
  // kernel A's boots cost 300 instructions a call, B's 290
  fake.scriptFor = (definition) => ({ console: probeLines(definition.includes('kernel A') ? 300 : 290, ++boot) });
  const store = Store.open(join(dir, 'trial.db'));
  try {
    const guest = scriptedGuest();
    const deps = { store, launcher: guest, probe, abort: new AbortController().signal, cacheDir: dir, services: { buildKernel: miniBuild([]) }, env: { HINTLAB_LAVA_TOKEN: 'lab-token' } };
    const doc = await runTrial(request(`lava://${fake.url}/qemu`), deps);
    assert.deepEqual(guest.boots.map((b) => b.kind), ['behave', 'behave', 'behave'], 'only the behaviour boots (A, B, A again) ran here');
    assert.equal(fake.jobs.length, 4, 'A B B A as four LAVA jobs');
    const vm = doc.steps.find((s) => s.name === 'vm')!;
    assert.equal(vm.state, 'done');
    const a = store.resolveRun(doc.measured.runs.A.label);
    const jobs = (a.environment as { lava: { jobs: { health: string }[] } }).lava.jobs;
    assert.deepEqual(jobs.map((j) => j.health), ['Complete', 'Complete']);
    const reproduce = doc.reproduce.find((r) => r.part === 'vm')!.argv;
    assert.deepEqual(reproduce.slice(reproduce.indexOf('--target'), reproduce.indexOf('--target') + 2), ['--target', `lava://${fake.url}/qemu`]);
    assert.ok(!JSON.stringify(doc).includes('lab-token'));
    // the same trial on this machine's qemu does not take the lab's boots for its own
    const local = await runTrial(request(null), deps);
    assert.equal(local.steps.find((s) => s.name === 'vm')!.state, 'done');
    assert.equal(fake.jobs.length, 4, 'no job for the local trial');
  } finally {
    store.close();
  }
});

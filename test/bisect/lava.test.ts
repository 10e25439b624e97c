/**
 * `hintlab bisect --target lava://...`: the real kernel lab
 * (src/bisect/lab.ts) builds each commit here with the trial tests' mini
 * build (real patch(1) and gcc on a small tree) and boots it as LAVA jobs
 * on the fake REST server (test/helpers/fake-lava.ts), whose guest
 * console is the probe's lines for the count the job's kernel image holds.
 * The real lab runs the same bisect in test/bisect/lava-lab.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { findProfile } from '../../src/bench/profiles.ts';
import { KernelLab, siteOpener } from '../../src/bisect/lab.ts';
import { runBisect, type BisectRequest } from '../../src/bisect/run.ts';
import { UserError } from '../../src/errors.ts';
import { readEnvironment } from '../../src/environment/read.ts';
import type { Store } from '../../src/store/store.ts';
import { parsePlace } from '../../src/targets/place.ts';
import type { SiteEvent } from '../../src/targets/site.ts';
import { type FakeJobScript, type FakeLava, startFakeLava } from '../helpers/fake-lava.ts';
import { runCli } from '../helpers/cli.ts';
import { requireTool } from '../helpers/tools.ts';
import { miniBuild, probeLines, scriptedGuest, unusedProbe, type ScriptedGuest } from '../trial/fakes.ts';
import { inMiniHistory, perCall } from './history.ts';

const skip = requireTool('patch', 'patch') || requireTool('gcc', 'gcc');
let fake: FakeLava;
before(async () => {
  fake = await startFakeLava('lab-token');
});
after(() => fake.close());

/** The kernel image a job definition names (a file:// URL: the worker is on this machine). */
function imageOf(definition: string): string {
  const job = JSON.parse(definition) as { actions: { deploy?: { images: { kernel: { url: string } } } }[] };
  return readFileSync(fileURLToPath(job.actions[0]!.deploy!.images.kernel.url), 'utf8');
}

/** Every job boots its kernel and prints the probe's rounds for its count, the same in every boot; `override` scripts some jobs otherwise. */
function scriptJobs(override: (n: number) => FakeJobScript | null = () => null): void {
  let n = 0;
  fake.scriptFor = (definition) => override(++n) ?? { console: probeLines(perCall(imageOf(definition)), 0) };
}

interface Bisect {
  request: BisectRequest;
  lab: (opts?: { abort?: AbortSignal; onEvent?: (e: SiteEvent) => void }) => KernelLab;
}

/** A bisect of the mini history on the fake lab (or qemu here with `local`, through the scripted guest). */
function bisectOf(dir: string, store: Store, src: string, guest: ScriptedGuest, local = false): Bisect {
  const place = parsePlace('bisect', { target: local ? [] : [`lava://${fake.url}/qemu`] }, { HINTLAB_LAVA_TOKEN: 'lab-token' });
  const probe = unusedProbe(dir);
  const request: BisectRequest = {
    src, good: 'v1', bad: 'master', out: join(dir, 'area'), metric: { subject: 'getppid', name: 'instructions/call', costModel: null },
    keyInputs: { probe: probe.buildId }, resume: false, command: 'hintlab bisect', target: place.kind === 'qemu' ? null : place.address.name,
  };
  const lab: Bisect['lab'] = (opts = {}) =>
    new KernelLab(
      { src, out: join(dir, 'area'), base: 'tinyconfig', fragment: null, opt: 'O2', jobs: 1, profile: findProfile('getppid')!, metric: 'instructions/call', cost: null, ops: 1000, rounds: 5, warmups: 1, timeoutSeconds: 60, command: 'hintlab bisect', invocation: { argv: [], cwd: dir }, hintlabVersion: 'test' },
      {
        store, launcher: guest, probe, abort: opts.abort ?? new AbortController().signal, cacheDir: dir, services: { buildKernel: miniBuild() },
        openSite: siteOpener(place, { probe, cacheDir: dir, pollMs: 5, onEvent: opts.onEvent }),
      },
    );
  return { request, lab };
}

test('on a LAVA lab every boot is one job (the endpoints two each), the culprit is found, a rerun reuses the lab\'s steps, and a bisect in qemu here does not', { skip }, () =>
  inMiniHistory(async (dir, store, src) => {
    scriptJobs();
    const jobsBefore = fake.jobs.length;
    const guest = scriptedGuest({ perCall });
    const b = bisectOf(dir, store, src, guest);
    const events: SiteEvent[] = [];
    const doc = await runBisect(b.request, { store, lab: b.lab({ onEvent: (e) => events.push(e) }) });
    assert.equal(doc.outcome.state === 'found' ? doc.outcome.firstBad.subject : null, 'copy the attr: cost 50');
    assert.deepEqual(doc.mode, { kind: 'exact', bootsPerStep: 1 }, 'every job of a kernel printed the same count');
    assert.equal(doc.target, `lava://${fake.url}/qemu`);
    const boots = doc.steps.flatMap((s) => (s.state === 'measured' ? s.boots : []));
    assert.equal(fake.jobs.length - jobsBefore, boots.length, 'one job per boot');
    assert.deepEqual(doc.steps.slice(0, 2).map((s) => s.state === 'measured' && [Math.round(s.value), s.boots.length]), [[217, 2], [268, 2]]);
    assert.equal(guest.boots.length, 0, 'nothing booted here');
    assert.ok(events.some((e) => e.kind === 'devices' && e.devices.includes('qemu01')));
    // each boot's run holds its LAVA job
    const run = store.getRun(boots[0]!.runId!);
    const env = readEnvironment(run);
    assert.equal(env.where === 'guest' ? env.lava?.jobs?.[0]?.health : null, 'Complete');
    const again = await runBisect(b.request, { store, lab: b.lab() });
    assert.equal(fake.jobs.length - jobsBefore, boots.length, 'a rerun submits no job');
    assert.ok(again.steps.every((s) => s.reused));
    // qemu here boots its own: a lab's counts are not this machine's
    const local = bisectOf(dir, store, src, guest, true);
    const here = await runBisect(local.request, { store, lab: local.lab() });
    assert.equal(here.target, null);
    assert.ok(here.steps.every((s) => !s.reused));
    assert.equal(guest.boots.length, here.steps.reduce((n, s) => n + (s.state === 'measured' ? s.boots.length : 0), 0));
    assert.equal(fake.jobs.length - jobsBefore, boots.length, 'and submits nothing to the lab');
  }));

test('a job that ends Incomplete stops the bisect naming the job, stores no step for it, and a rerun reuses the endpoints it had stored', { skip }, () =>
  inMiniHistory(async (dir, store, src) => {
    const first = fake.jobs.length + 1;
    // the four endpoint boots complete; the fifth job, the first step's, does not
    scriptJobs((n) => (n === 5 ? { console: ['Linux version 6.12.99'], health: 'Incomplete', failureComment: 'qemu-system-x86_64 exited' } : null));
    const b = bisectOf(dir, store, src, scriptedGuest());
    const failed = await runBisect(b.request, { store, lab: b.lab() }).then(
      () => assert.fail('the bisect went on past a failed job'),
      (err: unknown) => err,
    );
    assert.ok(failed instanceof UserError);
    assert.equal(failed.exitCode, 1);
    assert.match(failed.message, new RegExp(`boot failed on lava://${fake.url}/qemu \\(run #\\d+\\): .*LAVA job http://${fake.url}/scheduler/job/${first + 4} on qemu01 ended Incomplete: qemu-system-x86_64 exited`, 's'));
    assert.match(failed.message, /the bisect stops: .*run the bisect again \(the commits stored so far are reused\)/);
    scriptJobs();
    const doc = await runBisect(b.request, { store, lab: b.lab() });
    assert.equal(doc.outcome.state === 'found' ? doc.outcome.firstBad.subject : null, 'copy the attr: cost 50');
    assert.deepEqual(doc.steps.slice(0, 2).map((s) => s.reused), [true, true], 'the endpoints stored before the failure');
    assert.equal(doc.steps[2]!.reused, false, 'the failed step boots again');
  }));

test('a lab that stops answering stops the bisect with the job it was following', { skip }, () =>
  inMiniHistory(async (dir, store, src) => {
    const first = fake.jobs.length + 1;
    scriptJobs((n) => (n === 2 ? { console: [], brokenAfter: 1 } : null));
    const b = bisectOf(dir, store, src, scriptedGuest());
    await assert.rejects(runBisect(b.request, { store, lab: b.lab() }), (err: unknown) => {
      assert.ok(err instanceof UserError && err.exitCode === 1, String(err));
      assert.match(err.message, new RegExp(`boot failed on lava://${fake.url}/qemu .*HTTP 500.*LAVA job http://${fake.url}/scheduler/job/${first + 1}`, 's'));
      return true;
    });
  }));

test('Ctrl-C during a step asks LAVA to cancel its job and ends the bisect as interrupted', { skip }, () =>
  inMiniHistory(async (dir, store, src) => {
    // the job waits in the queue until it is cancelled
    scriptJobs(() => ({ console: [], queued: 1_000_000 }));
    const b = bisectOf(dir, store, src, scriptedGuest());
    const ctrlC = new AbortController();
    const onEvent = (e: SiteEvent): void => {
      if (e.kind === 'lava-job' && e.progress.kind === 'submitted') ctrlC.abort();
    };
    await assert.rejects(runBisect(b.request, { store, lab: b.lab({ abort: ctrlC.signal, onEvent }) }), (err: unknown) => {
      assert.ok(err instanceof UserError && err.exitCode === 130, String(err));
      assert.match(err.message, new RegExp(`^interrupted while booting [0-9a-f]{12}; its LAVA job on lava://${fake.url}/qemu was asked to cancel$`));
      return true;
    });
    const job = fake.jobs.at(-1)!;
    assert.ok(fake.cancels.includes(job.id), 'the submitted job was cancelled');
  }));

test('hintlab bisect --target lava:// says the lab\'s devices and each job on stderr, and a token the lab refuses is said before anything builds', { skip }, () =>
  inMiniHistory(async (dir, _store, src) => {
    scriptJobs();
    const built: string[] = [];
    const services = { bisect: { services: { buildKernel: miniBuild(built) }, probe: unusedProbe(dir), cacheDir: dir, pollMs: 5 } };
    const args = ['bisect', '--src', src, '--good', 'v1', '--bad', 'master', '--profile', 'getppid', '--ops', '1000', '--rounds', '5', '--warmups', '1', '--target', `lava://${fake.url}/qemu`, '--out', join(dir, 'area'), '--db', join(dir, 'cli.db')];
    const refused = await runCli(args, { services, env: { HINTLAB_LAVA_TOKEN: 'wrong-token' } });
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /refused the token/);
    assert.deepEqual(built, [], 'nothing was built');
    const r = await runCli(args, { services, env: { HINTLAB_LAVA_TOKEN: 'lab-token' } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^ {6}LAVA devices: qemu01$/m);
    assert.match(r.stderr, new RegExp(`^ {8}LAVA job \\d+ queued: http://${fake.url}/scheduler/job/\\d+$`, 'm'));
    assert.match(r.stdout, /^first bad commit: [0-9a-f]{40}\n {2}subject: copy the attr: cost 50$/m);
    assert.match(r.stdout, new RegExp(`^boots: on lava://${fake.url}/qemu, each boot one LAVA job`, 'm'));
  }));

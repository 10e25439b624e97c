/**
 * Where a run happens, parsed once: the union each command's flags make,
 * and every conflict of the table refused with exit status 2 before
 * anything builds, naming the flags and the fix.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UserError } from '../../src/errors.ts';
import { parsePlace, type PlaceFlags } from '../../src/targets/place.ts';

/** The UserError `parse` throws, checked to be a usage error (exit status 2). */
function refusal(parse: () => unknown): string {
  try {
    parse();
  } catch (err) {
    assert.ok(err instanceof UserError, String(err));
    assert.equal(err.exitCode, 2, err.message);
    return err.message;
  }
  assert.fail('the flags were accepted');
}

const vm = (flags: Partial<PlaceFlags>) => () => parsePlace('vm', { target: [], ...flags }, {});
const trial = (flags: Partial<PlaceFlags>, given: string[] = []) => () => parsePlace('trial', { target: [], ...flags }, {}, (f) => given.includes(f));

test('vm without --target boots in qemu here, with the accelerator and the cost model as given', () => {
  assert.deepEqual(parsePlace('vm', { target: [], accel: 'tcg', cost: true, costModel: 'predictor=2bit' }, {}), { kind: 'qemu', accel: 'tcg', cost: { model: 'predictor=2bit' } });
  assert.deepEqual(parsePlace('vm', { target: [] }, {}), { kind: 'qemu', accel: 'auto', cost: null });
});

test('a lava:// address is parsed once into the place, its token from the environment and never in its name', () => {
  const place = parsePlace('vm', { target: ['lava://lab.example:8000/qemu?tags=kvm'], resume: true }, { HINTLAB_LAVA_TOKEN: 's3cret' });
  assert.equal(place.kind, 'lava');
  assert.equal(place.address.name, 'lava://lab.example:8000/qemu?tags=kvm');
  assert.equal(place.address.token, 's3cret');
  assert.deepEqual(place.address.tags, ['kvm']);
  assert.equal(place.resume, true);
});

test('a fake:// address names each kernel\'s instructions per call', () => {
  const place = parsePlace('vm', { target: ['fake://B=1010,C=7'] }, {});
  assert.equal(place.kind, 'fake');
  assert.deepEqual([...place.address.perCall], [['B', 1010], ['C', 7]]);
  assert.match(refusal(vm({ target: ['fake://B=x'] })), /'B=x' is not LABEL=N with N >= 1; use fake:\/\/\[LABEL=N,\.\.\.\]/);
});

test('an address of no scheme vm boots on is read as a LAVA address, whose form the message gives, its token masked', () => {
  assert.match(refusal(vm({ target: ['ssh://root@box'] })), /--target ssh:\/\/\*\*\*@box: not a LAVA address; use lava:\/\/\[TOKEN@\]SERVER\[:PORT\]\/DEVICE_TYPE/);
});

test('a LAVA device type hintlab cannot write jobs for is refused from the address, before anything builds (vm and trial)', () => {
  for (const parse of [vm({ target: ['lava://lab/beaglebone-black'] }), trial({ target: ['lava://lab/beaglebone-black'] })]) {
    assert.match(refusal(parse), /--target lava:\/\/lab\/beaglebone-black: hintlab writes LAVA jobs for qemu device types only so far/);
  }
});

test('every conflict of vm\'s flags is refused, naming the flags and the fix', () => {
  const lab = ['lava://lab/qemu'];
  const cases: [Partial<PlaceFlags>, RegExp][] = [
    [{ target: lab, macro: true }, /^--macro does not run on a LAVA lab yet; drop --target or --macro$/],
    [{ target: ['fake://'], macro: true }, /^--macro does not run on a fake guest yet; drop --target or --macro$/],
    [{ macro: true, cost: true }, /^--cost counts the calls of probe profiles, and --macro runs stress-ng instead: drop --cost or --macro$/],
    [{ costModel: 'predictor=2bit' }, /^--cost-model sets the model of --cost; add --cost$/],
    [{ cost: true, accel: 'kvm' }, /^--cost counts in qemu's emulator \(TCG plugin\): use --accel tcg \(or auto\), or drop --cost for KVM timings$/],
    [{ resume: true }, /^--resume continues an order on a LAVA lab \(--target lava:\/\/\.\.\.\); a local vm order is rerun whole$/],
    [{ target: ['fake://'], resume: true }, /^--resume continues an order on a LAVA lab/],
    [{ target: lab, resume: true, repeat: 3 }, /^--resume continues an order with one run per boot \(--order\); a --repeat design pools boots/],
    [{ target: lab, cost: true }, /^--cost needs hintlab's qemu plugin on this machine; it does not run on a LAVA lab: drop --cost or --target$/],
    [{ target: lab, accel: 'kvm' }, /^--accel kvm: on a LAVA lab the device decides the accelerator; drop --accel \(runs are stored as emulated\)$/],
    [{ target: ['lava://a/qemu', 'lava://b/qemu'] }, /^--target is given 2 times; vm boots on one place: give one --target$/],
  ];
  for (const [flags, re] of cases) assert.match(refusal(vm(flags)), re, JSON.stringify(flags));
});

test('every conflict of trial\'s flags is refused, naming the flags and the fix', () => {
  const lab = ['lava://lab/qemu'];
  assert.match(refusal(trial({ cost: true }, ['--cost', '--no-cost'])), /^--cost and --no-cost: give one/);
  assert.match(refusal(trial({ cost: false, costModel: 'predictor=2bit' })), /^--cost-model sets the model of --cost; drop --no-cost$/);
  assert.match(refusal(trial({ cost: true, kvm: true })), /^--cost counts in qemu's emulator \(TCG plugin\), --kvm measures time: choose one$/);
  assert.match(refusal(trial({ costModel: 'predictor=2bit', target: lab })), /^--cost-model needs hintlab's qemu plugin on this machine; the measured boots of --target run on a LAVA lab: drop --cost-model or --target$/);
  assert.match(refusal(trial({ kvm: true, target: lab })), /^--kvm: on a LAVA lab \(--target\) the device decides the accelerator/);
  assert.match(refusal(trial({ target: ['fake://'] })), /not a LAVA address/);
});

test('bench and macro run here without --target, on each box with it; a box given twice and what a box cannot do are refused', () => {
  assert.deepEqual(parsePlace('bench', { target: [] }, {}), { kind: 'host' });
  const place = parsePlace('macro', { target: ['ssh://lab@box1', 'ssh://box2:2222'] }, {});
  assert.deepEqual(place.kind === 'ssh' ? place.boxes.map((b) => b.url) : [], ['ssh://lab@box1', 'ssh://box2:2222']);
  const bench = (flags: Partial<PlaceFlags>) => () => parsePlace('bench', { target: ['ssh://box1'], ...flags }, {});
  assert.match(refusal(bench({ target: ['ssh://box1', 'ssh://box1/'] })), /^--target ssh:\/\/box1 is given twice; give each box once$/);
  assert.match(refusal(bench({ switchFile: ['/proc/sys/x=1'] })), /^--switch-file writes files on this machine, not on a --target box/);
  assert.match(refusal(bench({ target: ['ssh://box1', 'ssh://box2'], json: true, pairedB: true })), /^--json with --label-b takes one --target at a time/);
  assert.equal(parsePlace('bench', { target: ['ssh://box1'], json: true, pairedB: true }, {}).kind, 'ssh');
});

const bisect = (flags: Partial<PlaceFlags>) => () => parsePlace('bisect', { target: [], ...flags }, { HINTLAB_LAVA_TOKEN: 't' });

test('bisect boots in qemu here under TCG without --target, and on the LAVA lab --target names with it, read as vm reads it', () => {
  assert.deepEqual(bisect({})(), { kind: 'qemu', accel: 'tcg', cost: null });
  const place = bisect({ target: ['lava://lab.example:8000/qemu?tags=icount'] })();
  assert.equal(place.kind, 'lava');
  assert.equal(place.address.name, 'lava://lab.example:8000/qemu?tags=icount');
  assert.equal(place.address.token, 't');
  assert.match(refusal(bisect({ target: ['ssh://root@box'] })), /--target ssh:\/\/\*\*\*@box: not a LAVA address; use lava:\/\/\[TOKEN@\]SERVER\[:PORT\]\/DEVICE_TYPE/);
  assert.match(refusal(bisect({ target: ['lava://lab/beaglebone-black'] })), /hintlab writes LAVA jobs for qemu device types only so far/);
});

test('every conflict of bisect\'s flags with --target is refused, naming the flag as typed and the fix', () => {
  const lab = ['lava://lab/qemu'];
  const cases: [Partial<PlaceFlags>, RegExp][] = [
    [{ target: lab, cost: true }, /^--cost needs hintlab's qemu plugin on this machine; the boots of --target run on a LAVA lab: drop --cost or --target$/],
    [{ target: lab, costModel: 'predictor=2bit' }, /^--cost-model needs hintlab's qemu plugin on this machine; .*drop --cost-model or --target$/],
    [{ target: lab, metric: 'taken-branches/call' }, /^--metric needs hintlab's qemu plugin on this machine; .*drop --metric or --target$/],
    [{ target: lab, followsStressor: true }, /^--stressor boots stress-ng, which does not run on a LAVA lab yet \(nor does vm --macro\); drop --target, or follow a --profile there$/],
  ];
  for (const [flags, message] of cases) assert.match(refusal(bisect(flags)), message);
  // the conflicts are found before the address is read: a bad address is not what is said
  assert.match(refusal(bisect({ target: ['lava://lab/beaglebone-black'], cost: true })), /^--cost needs/);
  assert.deepEqual(bisect({ cost: true, metric: 'taken-branches/call' })(), { kind: 'qemu', accel: 'tcg', cost: { model: '' } });
});

/** The scenario file format: what it compiles to, and every mistake named as FILE:LINE with the fix. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { builtinScenarios } from '../../src/behave/builtin.ts';
import { compilePlan, parseScenarios } from '../../src/behave/scenario.ts';

function error(text: string): string {
  try {
    parseScenarios(text, 'my.scn');
  } catch (err) {
    return (err as Error).message;
  }
  return '(no error)';
}

test('a scenario compiles to the runner plan: repeats expanded, nobody blocks kept apart, source lines kept', () => {
  const text = ['# a comment', 'scenario demo', 'peer', 'sched_getattr pid=peer   # trailing comment', 'repeat 2 sched_yield', 'as nobody', '  getppid', 'end', 'as nobody', '  sched_yield', 'end', 'getppid'].join('\n');
  const [s] = parseScenarios(text, 'my.scn');
  assert.equal(compilePlan([s!], [{ name: 'prog', path: 'behave/prog' }]), [
    'scenario demo peer',
    'step 4 sched_getattr pid=peer',
    'step 5 sched_yield',
    'step 5 sched_yield',
    'nobody 6',
    'step 7 getppid',
    'endnobody',
    'nobody 9',
    'step 10 sched_yield',
    'endnobody',
    'step 12 getppid',
    'end',
    'program prog behave/prog',
    '',
  ].join('\n'));
});

test('mistakes are named with the file, the line and the fix', () => {
  assert.equal(error('getppid'), "my.scn:1: 'getppid' before any 'scenario NAME' line; start the file with 'scenario NAME'");
  assert.equal(error('scenario a\nsched_foo'), 'my.scn:2: unknown call \'sched_foo\' (calls: getppid, sched_getattr, sched_setattr, sched_setscheduler, sched_setparam, sched_getscheduler, sched_getparam, sched_yield, sched_setaffinity, sched_getaffinity, setpriority, getpriority, select, mincore, touch, dontneed, base_slice, spin, pi_lock, peer_pi_lock, pi_unlock)');
  assert.equal(error('scenario a\nsched_getattr sizee=48'), "my.scn:2: sched_getattr takes no 'sizee' (keys: pid, attr, size, flags)");
  assert.equal(error('scenario a\nsched_yield now'), "my.scn:2: 'now': arguments are KEY=VALUE (e.g. pid=self)");
  assert.equal(error('scenario a\nsched_getattr pid=peer'), "my.scn:2: pid=peer needs a 'peer' line right after 'scenario a'");
  assert.equal(error('scenario a\nsched_setscheduler policy=FOO'), "my.scn:2: sched_setscheduler policy=FOO: expected policies (OTHER, FIFO, RR, BATCH, IDLE, DEADLINE, RESET_ON_FORK_POLICY), a number, or several joined by '+'");
  assert.equal(error('scenario a\nsched_getattr size=big'), 'my.scn:2: sched_getattr size=big: expected a whole number (decimal or 0x hex)');
  assert.equal(error('scenario a\nsched_getattr size=48 size=56'), "my.scn:2: sched_getattr: 'size' is given twice");
  assert.equal(error('scenario a\nas nobody\ngetppid'), "my.scn:3: 'as nobody' of line 2 is not closed; add 'end' after its steps");
  assert.equal(error('scenario a\ngetppid\nend'), "my.scn:3: 'end' without 'as nobody'; a scenario ends at the next 'scenario' line or the end of the file");
  assert.equal(error('scenario a\ngetppid\nscenario a\ngetppid'), "my.scn:3: scenario 'a' is defined twice (first at line 1); give each a name of its own");
  assert.equal(error('scenario a\nscenario b\ngetppid'), "my.scn:1: scenario 'a' has no steps");
  assert.equal(error('scenario a b'), "my.scn:1: 'scenario a b': expected 'scenario NAME' with a name of letters, digits, '.', '_' or '-'");
  assert.equal(error('scenario a\ngetppid\npeer'), "my.scn:3: 'peer' after the first step; put it right after 'scenario NAME'");
  assert.equal(error('scenario a\nrepeat 0 getppid'), "my.scn:2: 'repeat 0': expected 'repeat N CALL ...' with N from 1 to 100");
  assert.equal(error('scenario a\nselect read=rempty timeout=null'), 'my.scn:2: select timeout=null with no ready descriptor (read=rready or write=wready) waits forever; give timeout=MICROSECONDS');
  assert.equal(error('scenario a\nbase_slice'), 'my.scn:2: base_slice needs ns=...');
  assert.equal(error('scenario a\nneeds cpus=4'), "my.scn:2: 'needs cpus=4': the only need is 'needs cpus=2'");
  assert.equal(error('scenario a\npeer\npeer_pi_lock'), 'my.scn:3: peer_pi_lock: the caller does not hold the futex; pi_lock first, so the peer blocks on it');
  assert.equal(error('scenario a\npi_lock\ngetppid'), 'my.scn:3: the PI futex taken at line 2 is never released; add pi_unlock');
  assert.equal(error('scenario a\npi_lock\npi_lock'), 'my.scn:3: pi_lock: the futex is already held since line 2; pi_unlock first');
  assert.equal(error('scenario a\nas nobody\npi_lock'), "my.scn:3: pi_lock inside 'as nobody': the PI futex steps run as the scenario's own task");
  assert.equal(error('# nothing'), "my.scn: no scenario in the file; start one with 'scenario NAME'");
});

test('the built-in scenarios cover every benchmarked syscall family', () => {
  const calls = new Set(builtinScenarios().flatMap((s) => s.steps.map((st) => st.call)));
  for (const c of ['getppid', 'sched_getattr', 'sched_setattr', 'sched_getparam', 'sched_setparam', 'sched_getscheduler', 'sched_setscheduler', 'sched_yield', 'sched_setaffinity', 'select', 'mincore']) assert.ok(calls.has(c), c);
});
